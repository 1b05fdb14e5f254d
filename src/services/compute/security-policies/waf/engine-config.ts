/**
 * One engine configuration: the ModSecurity text a rules set is loaded from. Configuration as
 * shared/reference/cloud-armor-waf.md §6 measured it to match Google's model (DetectionOnly, every
 * body parsed as URL-encoded unless JSON parsing applies, no anomaly scoring: files 949–980 are
 * never loaded), then CRS 901, the attack files the rule's sets need, and the rule's exclusions
 * (§4.5). Equal configurations have equal keys, so the worker loads each once.
 */
import { CRS_RULES_DIRECTORY } from './crs-files.ts';
import type { ExclusionSpec } from './exclusions.ts';
import { exclusionLines } from './exclusions.ts';

/** BodyParsing is how a policy's advancedOptionsConfig has bodies read. */
export interface BodyParsing {
  /** json: `jsonParsing` is STANDARD or STANDARD_WITH_GRAPHQL. */
  readonly json: boolean;
  /** contentTypes are the type/subtype pairs read as JSON besides application/json (`jsonCustomConfig.contentTypes`), lower case. */
  readonly contentTypes: readonly string[];
}

/** EngineConfig is what one rules set is made of. */
export interface EngineConfig {
  /** files are the CRS attack files, sorted. */
  readonly files: readonly string[];
  /** paranoia is CRS's paranoia level to run at: the highest sensitivity any enabled signature needs. */
  readonly paranoia: number;
  readonly exclusions: readonly ExclusionSpec[];
  readonly parsing: BodyParsing;
}

/** configKey identifies a configuration: equal keys load equal rules sets. */
export function configKey(config: EngineConfig): string {
  return JSON.stringify([config.files, config.paranoia, config.exclusions, config.parsing.json, config.parsing.contentTypes]);
}

/** BODY_LIMIT is what the engine is configured to accept; bodies are cut to the policy's inspection size before they reach it. */
const BODY_LIMIT = 131072;

/** configText writes the ModSecurity text of a configuration. */
export function configText(config: EngineConfig): string {
  const lines = [
    'SecRuleEngine DetectionOnly',
    'SecRequestBodyAccess On',
    `SecRequestBodyLimit ${BODY_LIMIT}`,
    `SecRequestBodyNoFilesLimit ${BODY_LIMIT}`,
    'SecRequestBodyLimitAction ProcessPartial',
    'SecRequestBodyJsonDepthLimit 512',
    'SecArgumentSeparator &',
    'SecCookieFormat 0',
    'SecResponseBodyAccess Off',
    'SecDefaultAction "phase:1,log,auditlog,pass"',
    'SecDefaultAction "phase:2,log,auditlog,pass"',
    // Without the setup version rule 901001 denies every request (status 500).
    'SecAction "id:900990,phase:1,pass,nolog,t:none,setvar:tx.crs_setup_version=334"',
    `SecAction "id:900000,phase:1,pass,nolog,t:none,setvar:tx.paranoia_level=${config.paranoia}"`,
    // Every body is decoded like URL query parameters (docs: security-policy-overview), applied by CRS 901350.
    'SecAction "id:900010,phase:1,pass,nolog,t:none,setvar:tx.enforce_bodyproc_urlencoded=1"',
    `Include "${CRS_RULES_DIRECTORY}/REQUEST-901-INITIALIZATION.conf"`,
    // Multipart bodies are inspected as raw data (docs: content-parsing): URL-encoded over their bytes.
    'SecRule REQBODY_PROCESSOR "@streq MULTIPART" "id:10001,phase:1,pass,nolog,t:none,ctl:requestBodyProcessor=URLENCODED"',
  ];
  if (config.parsing.json) {
    const types = ['application/json', ...config.parsing.contentTypes].map(regexEscape).join('|');
    lines.push(
      `SecRule REQUEST_HEADERS:Content-Type "@rx ^(?:${quoteEscape(types)})\\s*(?:;|$)" "id:10002,phase:1,pass,nolog,t:none,t:lowercase,t:trim,ctl:requestBodyProcessor=JSON"`,
    );
  }
  for (const file of config.files) lines.push(`Include "${CRS_RULES_DIRECTORY}/${file}"`);
  lines.push(...exclusionLines(config.exclusions));
  return `${lines.join('\n')}\n`;
}

/** regexEscape escapes `text` for a PCRE pattern. */
export function regexEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\#-]/g, '\\$&');
}

/** quoteEscape escapes `text` for a double-quoted ModSecurity argument (its parser reads `\\"` as a quote and every other backslash as itself). */
export function quoteEscape(text: string): string {
  return text.replace(/"/g, '\\"');
}
