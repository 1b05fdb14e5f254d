/**
 * What a policy asks of the WAF engine: the configurations its rules need and which rule reads
 * which. Rules whose WAF calls carry no exclusions share one configuration (the union of their
 * sets' files at the highest paranoia level any of them needs): one engine pass serves them all,
 * and each call's sensitivity, opt-in and opt-out are a filter over what fired (reference §0.3). A
 * rule with exclusions gets a configuration of its own. Equal configurations have equal keys, so
 * the engine loads each once and keeps it across requests and policy changes.
 */
import type { StoredRule } from '../prepare-rule.ts';
import { type BodyParsing, configKey, configText, type EngineConfig } from './engine-config.ts';
import type { ExclusionField, ExclusionOp, ExclusionSpec } from './exclusions.ts';
import { inspectionLimitOf } from './inspection-limit.ts';
import { isUnsupported, type ResolvedSet, resolveSet } from './rule-sets.ts';
import { REPORTED_AS } from './signatures.ts';
import { paranoiaOf, type WafCall } from './waf-call.ts';

/** PlannedConfig is a configuration and the text it loads from. */
export interface PlannedConfig {
  readonly key: string;
  readonly config: EngineConfig;
  readonly text: string;
}

/** WafPlan is a policy's needs. */
export interface WafPlan {
  readonly configs: readonly PlannedConfig[];
  /** ruleKeys maps a rule's priority to the key of the configuration its calls read. */
  readonly ruleKeys: ReadonlyMap<number, string>;
  /** inspectionLimit is how many body bytes the engine sees (`advancedOptionsConfig.requestBodyInspectionSize`, 8 KB by default). */
  readonly inspectionLimit: number;
}

/** PlannedRule is what the plan reads of one rule. */
export interface PlannedRule {
  readonly stored: StoredRule;
  readonly calls: readonly WafCall[];
}

/** wafPlanOf plans `rules`; undefined when no rule calls a set the engine can evaluate. */
export function wafPlanOf(rules: readonly PlannedRule[], advancedOptions: unknown): WafPlan | undefined {
  const parsing = bodyParsingOf(advancedOptions);
  const shared = { files: new Set<string>(), paranoia: 0, rules: [] as number[] };
  const own: PlannedConfig[] = [];
  const ruleKeys = new Map<number, string>();
  for (const { stored, calls } of rules) {
    const sets = calls.map((call) => resolveSet(call.set)).filter((set): set is ResolvedSet => set !== undefined && !isUnsupported(set));
    if (sets.length === 0) continue;
    const files = new Set(sets.map((set) => set.crsFile));
    const paranoia = Math.max(1, ...calls.map(paranoiaOf));
    const exclusions = exclusionsOf(stored, files);
    if (exclusions.length === 0) {
      for (const file of files) shared.files.add(file);
      shared.paranoia = Math.max(shared.paranoia, paranoia);
      shared.rules.push(stored.priority);
      continue;
    }
    const planned = plannedConfig({ files: [...files].sort(), paranoia, exclusions, parsing });
    own.push(planned);
    ruleKeys.set(stored.priority, planned.key);
  }
  const configs: PlannedConfig[] = [];
  if (shared.rules.length > 0) {
    const planned = plannedConfig({ files: [...shared.files].sort(), paranoia: shared.paranoia, exclusions: [], parsing });
    configs.push(planned);
    for (const priority of shared.rules) ruleKeys.set(priority, planned.key);
  }
  for (const planned of own) if (!configs.some((config) => config.key === planned.key)) configs.push(planned);
  if (configs.length === 0) return undefined;
  return { configs, ruleKeys, inspectionLimit: inspectionLimitOf(advancedOptions) };
}

function plannedConfig(config: EngineConfig): PlannedConfig {
  return { key: configKey(config), config, text: configText(config) };
}

/** bodyParsingOf reads `jsonParsing` and `jsonCustomConfig.contentTypes` (type/subtype, parameters excluded). */
export function bodyParsingOf(advancedOptions: unknown): BodyParsing {
  const options = (typeof advancedOptions === 'object' && advancedOptions !== null ? advancedOptions : {}) as Record<string, unknown>;
  const mode = options['jsonParsing'];
  const json = mode === 'STANDARD' || mode === 'STANDARD_WITH_GRAPHQL';
  const custom = options['jsonCustomConfig'] as Record<string, unknown> | undefined;
  const types = Array.isArray(custom?.['contentTypes']) ? (custom['contentTypes'] as unknown[]) : [];
  // "Only applicable when json_parsing is set to STANDARD" (API doc).
  const contentTypes = json
    ? [...new Set(types.filter((type): type is string => typeof type === 'string').map((type) => type.trim().toLowerCase()))].sort()
    : [];
  return { json, contentTypes };
}

/** exclusionsOf resolves a rule's exclusions whose target set's file is loaded (the others cannot apply). */
function exclusionsOf(rule: StoredRule, files: ReadonlySet<string>): ExclusionSpec[] {
  const specs: ExclusionSpec[] = [];
  for (const exclusion of rule.preconfiguredWafConfig?.exclusions ?? []) {
    const set = resolveSet(exclusion.targetRuleSet ?? '');
    if (set === undefined || isUnsupported(set) || !files.has(set.crsFile)) continue;
    const targets = exclusion.targetRuleIds ?? [];
    const ids = new Set<string>();
    const named = targets.length === 0 ? [...set.table.keys()] : targets.map((target) => set.crsIdOf(target)).filter((id): id is string => id !== undefined);
    for (const id of named) {
      ids.add(id);
      for (const [fired, reported] of REPORTED_AS) if (reported === id) ids.add(fired);
    }
    if (ids.size === 0) continue;
    const spec: ExclusionSpec = {
      crsIds: [...ids].sort(),
      headers: fieldsOf(exclusion.requestHeadersToExclude),
      cookies: fieldsOf(exclusion.requestCookiesToExclude),
      queryParams: fieldsOf(exclusion.requestQueryParamsToExclude),
      uris: fieldsOf(exclusion.requestUrisToExclude),
    };
    if (spec.headers.length + spec.cookies.length + spec.queryParams.length + spec.uris.length > 0) specs.push(spec);
  }
  return specs;
}

function fieldsOf(fields: readonly { op?: string; val?: string }[] | undefined): ExclusionField[] {
  const read: ExclusionField[] = [];
  for (const field of fields ?? []) {
    const op = field.op as ExclusionOp | undefined;
    if (op === undefined) continue;
    if (op === 'EQUALS_ANY') read.push({ op });
    else if (field.val !== undefined && field.val !== '') read.push({ op, val: field.val });
  }
  return read;
}
