/**
 * The body compute reads for `POST /_fogbank/securityPolicies:replay` (issue 39), as a pure
 * function with the messages the client gets: the policy named (as it is in the store now), what
 * is proposed instead — a whole policy (`proposed`, as `gcloud compute security-policies export`
 * writes it) or rule edits on a copy of the current one (`rules`: `[{"priority": N, "rule": {…}}]`
 * adds or patches the rule at N as `addRule` / `patchRule` do, `"rule": null` removes it) — and
 * the requests in recorded order, each the what-if API's request with an optional `time`.
 */
import { badInput, MAX_REQUESTS as MAX_WHAT_IF_REQUESTS, parsePolicyName, type PolicyName, readTrafficRequest } from '../what-if-body.ts';
import type { TrafficRequest } from '../evaluation/traffic-request.ts';

/** MAX_REPLAYED is the most requests one replay evaluates (each twice). */
export const MAX_REPLAYED = 10 * MAX_WHAT_IF_REQUESTS;

/** RuleEdit is one change to a copy of the current policy: set (add or patch) the rule at `priority`, or remove it (`rule` null). */
export interface RuleEdit {
  readonly priority: number;
  readonly rule: Readonly<Record<string, unknown>> | null;
}

/** ReplayedRequest is one request to replay and when it was sent (ms since the epoch), if known. */
export interface ReplayedRequest {
  readonly request: TrafficRequest;
  readonly time: number | undefined;
}

/** ReplayBody is a validated replay body. */
export interface ReplayBody {
  readonly policy: PolicyName;
  readonly proposed: { readonly policy: Readonly<Record<string, unknown>> } | { readonly rules: readonly RuleEdit[] };
  readonly requests: readonly ReplayedRequest[];
  readonly wafUnknown: 'match' | 'no-match';
}

/** REPLAY_FIELDS are the members compute reads. */
export const REPLAY_FIELDS = ['policy', 'proposed', 'rules', 'requests', 'wafUnknown'];

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** readReplayBody validates the body, or throws the evaluation's 400. */
export function readReplayBody(body: unknown): ReplayBody {
  if (!isObject(body))
    throw badInput('The body must be a JSON object: {"policy": NAME, "proposed": {…policy} or "rules": [{"priority", "rule"}], "requests": [{…}]}.');
  const unknown = Object.keys(body).find((key) => !REPLAY_FIELDS.includes(key));
  if (unknown !== undefined)
    throw badInput(
      `Unknown member ${JSON.stringify(unknown)}: replay takes policy, proposed or rules, wafUnknown, and requests (or source with since, text or sourceIp).`,
    );
  const name = body['policy'];
  if (typeof name !== 'string')
    throw badInput(
      '"policy" is required: the name of the policy in force, projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.',
    );
  const policy = parsePolicyName(name);
  const wafUnknown = body['wafUnknown'] ?? 'no-match';
  if (wafUnknown !== 'match' && wafUnknown !== 'no-match') throw badInput(`"wafUnknown" must be "match" or "no-match", not ${JSON.stringify(wafUnknown)}.`);
  const whole = body['proposed'];
  const edits = body['rules'];
  if ((whole === undefined) === (edits === undefined))
    throw badInput(
      'Give one of "proposed" (a whole policy, as gcloud compute security-policies export writes it) or "rules" (edits to a copy of the current policy).',
    );
  let proposed: ReplayBody['proposed'];
  if (whole !== undefined) {
    if (!isObject(whole)) throw badInput('"proposed" must be a security policy object (its name, type and rules).');
    proposed = { policy: whole };
  } else proposed = { rules: readRuleEdits(edits) };
  const requests = body['requests'];
  if (!Array.isArray(requests)) throw badInput('"requests" must be a list of requests: {"method", "url", "headers", "sourceIp", "time", …}.');
  if (requests.length > MAX_REPLAYED) throw badInput(`"requests" holds ${requests.length} requests; at most ${MAX_REPLAYED} are replayed at once.`);
  return { policy, proposed, requests: requests.map((request, i) => readReplayed(request, `requests[${i}]`)), wafUnknown };
}

/** readRuleEdits reads `rules`: a non-empty list of `{"priority": N, "rule": {…} | null}`, no priority twice. */
function readRuleEdits(value: unknown): RuleEdit[] {
  if (!Array.isArray(value) || value.length === 0)
    throw badInput('"rules" must be a list of at least one edit: {"priority": N, "rule": {…}} (or "rule": null to remove).');
  if (value.length > 1000) throw badInput(`"rules" holds ${value.length} edits; a policy holds at most 1000 rules.`);
  const seen = new Set<number>();
  return value.map((edit, i) => {
    const at = `rules[${i}]`;
    if (!isObject(edit) || Object.keys(edit).some((key) => key !== 'priority' && key !== 'rule'))
      throw badInput(`"${at}" must be {"priority": N, "rule": {…}} (or "rule": null to remove the rule at N).`);
    const priority = edit['priority'];
    if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > 2147483647)
      throw badInput(`"${at}.priority" must be a rule priority from 0 to 2147483647, not ${JSON.stringify(priority) ?? 'missing'}.`);
    if (seen.has(priority)) throw badInput(`"${at}.priority": ${priority} is edited twice; give each priority once.`);
    seen.add(priority);
    const rule = edit['rule'];
    if (rule !== null && !isObject(rule))
      throw badInput(`"${at}.rule" must be a security policy rule object (as rules create or update take it), or null to remove it.`);
    return { priority, rule };
  });
}

/** readReplayed reads one request: the what-if form plus `time` (RFC 3339, or ms since the epoch). */
function readReplayed(value: unknown, at: string): ReplayedRequest {
  if (!isObject(value)) throw badInput(`"${at}" must be an object with method, url and sourceIp.`);
  const { time, ...rest } = value;
  let ms: number | undefined;
  if (typeof time === 'number' && Number.isSafeInteger(time) && time >= 0) ms = time;
  else if (typeof time === 'string' && RFC3339.test(time) && !Number.isNaN(Date.parse(time))) ms = Date.parse(time);
  else if (time !== undefined) throw badInput(`"${at}.time" must be an RFC 3339 time such as "2026-01-01T00:00:00.000Z", not ${JSON.stringify(time)}.`);
  return { request: readTrafficRequest(rest, at), time: ms };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
