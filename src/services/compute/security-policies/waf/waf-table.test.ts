/**
 * The preconfigured WAF sets on the real Core Rule Set (libmodsecurity3 + Debian's CRS 3.3.4), as a
 * table: cases from Google's tuning documentation and the reference's probes (shared/reference/
 * cloud-armor-waf.md §8), and cases written after CRS 3.3's own regression tests
 * (tests/regression/tests/*\/<id>.yaml: the payload, where it goes, the rule that must fire or not).
 * Each case is a policy of one rule (deny(403) at 1000, default allow) evaluated through the what-if
 * path: compilePolicy, the engine's inspection, the decision.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../../lib/clock.ts';
import { compilePolicy, type Decision, RateLimitState, type TrafficRequest } from '../evaluation/index.ts';
import { WafEngine } from './waf-engine.ts';

const engine = new WafEngine({ idleMs: 1000 });
after(() => engine.close());

interface Case {
  readonly name: string;
  readonly expression: string;
  readonly request: Partial<TrafficRequest> & { readonly path?: string };
  readonly exclusions?: readonly Record<string, unknown>[];
  readonly advanced?: Record<string, unknown>;
  /** denied: the rule decides (403); ids, when given, are exactly the decision's preconfiguredExprIds. */
  readonly denied: boolean;
  readonly ids?: readonly string[];
  /** includes / excludes: signature ids that must (not) be among preconfiguredExprIds. */
  readonly includes?: readonly string[];
  readonly excludes?: readonly string[];
  readonly statusDetails?: string;
}

const sqli = (id: string): string => `owasp-crs-v030301-id${id}-sqli`;
const xss = (id: string): string => `owasp-crs-v030301-id${id}-xss`;
const SQLI_QUERY = '/search?id=1%27%20or%20%271%27%3D%271';
const SCRIPT = '<script>alert(1)</script>';

async function decide(c: Case): Promise<Decision> {
  const policy = {
    name: 'waf',
    ...(c.advanced === undefined ? {} : { advancedOptionsConfig: c.advanced }),
    rules: [
      {
        priority: 1000,
        action: 'deny(403)',
        match: { expr: { expression: c.expression } },
        ...(c.exclusions === undefined ? {} : { preconfiguredWafConfig: { exclusions: c.exclusions } }),
      },
      { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
    ],
  };
  const compiled = compilePolicy(policy, { clock: new ManualClock(0), wafUnknown: 'no-match', rateLimits: new RateLimitState() });
  const { path, ...rest } = c.request;
  const request: TrafficRequest = {
    method: 'GET',
    url: `http://example.com${path ?? '/'}`,
    headers: { host: 'example.com' },
    sourceIp: '203.0.113.9',
    ...rest,
  };
  assert.ok(compiled.wafPlan !== undefined, 'the policy asks the engine');
  return compiled.evaluate(request, await engine.inspect(compiled.wafPlan, request));
}

const form = (body: string): Partial<TrafficRequest> => ({
  method: 'POST',
  headers: { host: 'example.com', 'content-type': 'application/x-www-form-urlencoded' },
  body: Buffer.from(body),
});
const json = (body: unknown, type = 'application/json'): Partial<TrafficRequest> => ({
  method: 'POST',
  headers: { host: 'example.com', 'content-type': type },
  body: Buffer.from(JSON.stringify(body)),
});

const CASES: readonly Case[] = [
  // SQL injection: query string, form body, JSON body (reference §8 #1–#4; CRS 942100.yaml).
  {
    name: 'sqli in a query parameter, sensitivity 1',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: { path: SQLI_QUERY },
    denied: true,
    ids: [sqli('942100')],
  },
  {
    name: 'the canary name reads the same table',
    expression: "evaluatePreconfiguredWaf('sqli-v33-canary', {'sensitivity': 1})",
    request: { path: SQLI_QUERY },
    denied: true,
    ids: [sqli('942100')],
  },
  {
    name: 'sqli, 942100 opted out at sensitivity 1: nothing else of level 1 fires',
    expression: `evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1, 'opt_out_rule_ids': ['${sqli('942100')}']})`,
    request: { path: SQLI_QUERY },
    denied: false,
  },
  {
    name: 'sqli at sensitivity 2 with 942100 opted out: its siblings still fire',
    expression: `evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 2, 'opt_out_rule_ids': ['${sqli('942100')}']})`,
    request: { path: SQLI_QUERY },
    denied: true,
    includes: [sqli('942180'), sqli('942330')],
    excludes: [sqli('942100'), sqli('942511'), sqli('942432')],
  },
  {
    name: 'sensitivity 0 without opt-ins enables nothing',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 0})",
    request: { path: SQLI_QUERY },
    denied: false,
  },
  {
    name: 'sensitivity 0 with one opt-in',
    expression: `evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 0, 'opt_in_rule_ids': ['${sqli('942180')}']})`,
    request: { path: SQLI_QUERY },
    denied: true,
    ids: [sqli('942180')],
  },
  {
    name: 'no options: sensitivity 4, every signature',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable')",
    request: { path: SQLI_QUERY },
    denied: true,
    includes: [sqli('942100'), sqli('942511'), sqli('942432')],
  },
  {
    name: 'the deprecated evaluatePreconfiguredExpr with excluded ids (CRS 3.0 names)',
    expression: "evaluatePreconfiguredExpr('sqli-stable', ['owasp-crs-v030001-id942180-sqli'])",
    request: { path: SQLI_QUERY },
    denied: true,
    includes: ['owasp-crs-v030001-id942330-sqli'],
    excludes: ['owasp-crs-v030001-id942180-sqli', 'owasp-crs-v030001-id942100-sqli'],
  },
  {
    name: 'sqli in a form body is judged in the body phase',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: form("q=1' or '1'='1"),
    denied: true,
    ids: [sqli('942100')],
    statusDetails: 'body_denied_by_security_policy',
  },
  {
    name: 'sqli in a JSON body with jsonParsing STANDARD',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: json({ q: "1' or '1'='1", n: { x: 'union select password from users' } }),
    advanced: { jsonParsing: 'STANDARD' },
    denied: true,
    includes: [sqli('942100')],
    statusDetails: 'body_denied_by_security_policy',
  },
  {
    name: 'the same JSON with parsing off reads as one URL-encoded name: not at sensitivity 1',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: json({ q: "1' or '1'='1" }),
    denied: false,
  },
  {
    name: '… but at sensitivity 2',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 2})",
    request: json({ q: "1' or '1'='1" }),
    denied: true,
    includes: [sqli('942260')],
  },
  {
    name: 'a custom JSON content type',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: json({ q: "1' or '1'='1" }, 'application/vnd.api+json; charset=utf-8'),
    advanced: { jsonParsing: 'STANDARD', jsonCustomConfig: { contentTypes: ['application/vnd.api+json'] } },
    denied: true,
    ids: [sqli('942100')],
  },
  // XSS in a header and a cookie (CRS 941100.yaml, 941110.yaml).
  {
    name: 'xss in the User-Agent header',
    expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})",
    request: { headers: { host: 'example.com', 'user-agent': SCRIPT } },
    denied: true,
    includes: [xss('941100'), xss('941110')],
  },
  {
    name: 'xss in a cookie',
    expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})",
    request: { headers: { host: 'example.com', cookie: `q=${SCRIPT}` } },
    denied: true,
    includes: [xss('941110')],
  },
  {
    name: 'xss in a form body (reference §8 #2): xss, not sqli at 1',
    expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1}) && !evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: form('c=%3Cscript%3Ealert(1)%3C%2Fscript%3E'),
    denied: true,
    includes: [xss('941100'), xss('941110')],
  },
  // Path traversal (CRS 930100.yaml–930120.yaml; reference §8 #9).
  {
    name: 'path traversal in a parameter',
    expression: "evaluatePreconfiguredWaf('lfi-v33-stable', {'sensitivity': 1})",
    request: { path: '/x?f=../../etc/passwd' },
    denied: true,
    includes: ['owasp-crs-v030301-id930100-lfi', 'owasp-crs-v030301-id930120-lfi'],
  },
  // The other families (reference §8 #6–#8).
  {
    name: 'PUT is not an allowed method',
    expression: "evaluatePreconfiguredWaf('methodenforcement-v33-stable', {'sensitivity': 1})",
    request: { method: 'PUT', path: '/x' },
    denied: true,
    ids: ['owasp-crs-v030301-id911100-methodenforcement'],
  },
  {
    name: 'a scanner User-Agent',
    expression: "evaluatePreconfiguredWaf('scannerdetection-v33-stable', {'sensitivity': 1})",
    request: { headers: { host: 'example.com', 'user-agent': 'sqlmap/1.7' } },
    denied: true,
    ids: ['owasp-crs-v030301-id913100-scannerdetection'],
  },
  {
    name: 'a repeated parameter is Google’s 921170 (CRS 921180), at sensitivity 3',
    expression: "evaluatePreconfiguredWaf('protocolattack-v33-stable', {'sensitivity': 3})",
    request: { path: '/x?a=1&a=2' },
    denied: true,
    ids: ['owasp-crs-v030301-id921170-protocolattack'],
  },
  {
    name: '… and not at 2',
    expression: "evaluatePreconfiguredWaf('protocolattack-v33-stable', {'sensitivity': 2})",
    request: { path: '/x?a=1&a=2' },
    denied: false,
  },
  {
    name: 'rce in a parameter',
    expression: "evaluatePreconfiguredWaf('rce-v33-stable', {'sensitivity': 1})",
    request: { path: '/x?f=../../etc/passwd' },
    denied: true,
    includes: ['owasp-crs-v030301-id932160-rce'],
  },
  // Exclusions (docs: rule-tuning; reference §4.2, §8 #5, #11).
  {
    name: 'an excluded header passes the one rule it is excluded from',
    expression: `evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 0, 'opt_in_rule_ids': ['${xss('941110')}']})`,
    request: { headers: { host: 'example.com', 'user-agent': SCRIPT } },
    exclusions: [{ targetRuleSet: 'xss-v33-stable', targetRuleIds: [xss('941110')], requestHeadersToExclude: [{ op: 'EQUALS', val: 'User-Agent' }] }],
    denied: false,
  },
  {
    name: '… the same payload in another header still fires that rule',
    expression: `evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 0, 'opt_in_rule_ids': ['${xss('941110')}']})`,
    request: { headers: { host: 'example.com', referer: SCRIPT } },
    exclusions: [{ targetRuleSet: 'xss-v33-stable', targetRuleIds: [xss('941110')], requestHeadersToExclude: [{ op: 'EQUALS', val: 'User-Agent' }] }],
    denied: true,
    ids: [xss('941110')],
  },
  {
    name: '… and the other rules still read the excluded header',
    expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})",
    request: { headers: { host: 'example.com', 'user-agent': SCRIPT } },
    exclusions: [{ targetRuleSet: 'xss-v33-stable', targetRuleIds: [xss('941110')], requestHeadersToExclude: [{ op: 'EQUALS', val: 'User-Agent' }] }],
    denied: true,
    includes: [xss('941100')],
    excludes: [xss('941110')],
  },
  {
    name: 'a cookie excluded from the whole set (STARTS_WITH)',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable')",
    request: { headers: { host: 'example.com', cookie: "sid=1' or '1'='1" } },
    exclusions: [{ targetRuleSet: 'sqli-v33-stable', requestCookiesToExclude: [{ op: 'STARTS_WITH', val: 'SI' }] }],
    denied: false,
  },
  {
    name: 'an excluded query parameter of one rule (reference §8 #5)',
    expression: `evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 0, 'opt_in_rule_ids': ['${sqli('942100')}', '${sqli('942180')}']})`,
    request: { path: SQLI_QUERY },
    exclusions: [{ targetRuleSet: 'sqli-v33-stable', targetRuleIds: [sqli('942100')], requestQueryParamsToExclude: [{ op: 'EQUALS', val: 'id' }] }],
    denied: true,
    ids: [sqli('942180')],
  },
  {
    name: 'a query parameter exclusion covers the POST body too',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: form("q=1' or '1'='1"),
    exclusions: [{ targetRuleSet: 'sqli-v33-stable', requestQueryParamsToExclude: [{ op: 'EQUALS_ANY' }] }],
    denied: false,
  },
  {
    name: 'an exclusion of another set changes nothing',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: { path: SQLI_QUERY },
    exclusions: [{ targetRuleSet: 'xss-v33-stable', requestQueryParamsToExclude: [{ op: 'EQUALS_ANY' }] }],
    denied: true,
    ids: [sqli('942100')],
  },
  // Bodies past the inspection limit are judged on their first bytes (docs: common-use-cases).
  {
    name: 'an injection past the first 8 KB is not seen',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: form(`pad=${'a'.repeat(9000)}&q=1' or '1'='1`),
    denied: false,
  },
  {
    name: '… with requestBodyInspectionSize 16KB it is',
    expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})",
    request: form(`pad=${'a'.repeat(9000)}&q=1' or '1'='1`),
    advanced: { requestBodyInspectionSize: '16kb' },
    denied: true,
    ids: [sqli('942100')],
  },
  // Benign traffic (reference §8 #12).
  {
    name: 'a benign request matches no set at sensitivity 4',
    expression:
      "evaluatePreconfiguredWaf('sqli-v33-stable') || evaluatePreconfiguredWaf('xss-v33-stable') || evaluatePreconfiguredWaf('lfi-v33-stable') || evaluatePreconfiguredWaf('rce-v33-stable') || evaluatePreconfiguredWaf('php-v33-stable')",
    request: {
      path: '/search?q=red+shoes&page=2',
      headers: { host: 'example.com', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', cookie: 'session=abc123; theme=dark' },
    },
    denied: false,
  },
];

describe('preconfigured WAF sets on the Core Rule Set', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const decision = await decide(c);
      const ids = decision.enforcedSecurityPolicy.preconfiguredExprIds ?? [];
      const detail = decision.explanation.map((entry) => entry.detail).join(' | ');
      assert.equal(decision.rule.priority, c.denied ? 1000 : 2147483647, detail);
      if (c.denied) assert.deepEqual(decision.response, { kind: 'deny', status: 403 });
      if (c.ids !== undefined) assert.deepEqual([...ids].sort(), [...c.ids].sort(), detail);
      for (const id of c.includes ?? []) assert.ok(ids.includes(id), `${id} in ${ids.join(', ')}`);
      for (const id of c.excludes ?? []) assert.ok(!ids.includes(id), `${id} not in ${ids.join(', ')}`);
      if (c.statusDetails !== undefined) assert.equal(decision.statusDetails, c.statusDetails);
    });
  }
});
