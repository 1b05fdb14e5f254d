/**
 * A fault rule as a test states it (issue 28): what it matches (family, API method id, path glob,
 * principal), when it fires (probability, the first `after` matches skipped, then `times`
 * matches), and one effect. Validation is pure and phrases each problem precisely, so the admin
 * API can answer it as a 400 and the programmatic API as a thrown FaultRuleError.
 */

/** FaultQuotaInfo is compute's `errorDetails[].quotaInfo` of an injected Operation error. */
export interface FaultQuotaInfo {
  readonly metricName: string;
  readonly limitName: string;
  readonly dimensions?: Readonly<Record<string, string>>;
  readonly limit: number;
}

/** FaultOperationError is the error an accepted compute mutation's Operation ends DONE with. */
export interface FaultOperationError {
  readonly code: string;
  readonly message?: string;
  readonly quotaInfo?: FaultQuotaInfo;
  /** The HTTP status the Operation reports (`httpErrorStatusCode`); 403 by default, as for QUOTA_EXCEEDED. */
  readonly httpStatus?: number;
}

/** FaultRuleInput is a rule as given (the admin API's JSON body, or `faults.add(…)`). */
export interface FaultRuleInput {
  readonly family?: string;
  readonly method?: string;
  readonly path?: string;
  readonly principal?: string;
  readonly probability?: number;
  readonly times?: number;
  readonly after?: number;
  readonly status?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly retryAfter?: number;
  readonly operationError?: FaultOperationError;
  readonly latencyMs?: number;
  readonly jitterMs?: number;
  readonly reset?: 'before-headers' | 'after-headers';
  readonly watch?: 'gone' | 'close';
  readonly dropAfterBytes?: number;
}

/** FaultRule is a validated rule with its id; `times`, when given, counts down as it fires. */
export interface FaultRule extends FaultRuleInput {
  readonly id: string;
}

/** FaultRuleError is a rule that cannot be accepted; its message says exactly why (the admin API's 400). */
export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
}

/** EFFECTS are the members of which a rule must carry exactly one (reason, message, retryAfter and jitterMs qualify one). */
export const EFFECTS = ['status', 'operationError', 'latencyMs', 'reset', 'watch', 'dropAfterBytes'] as const;

/** FaultEffect is the name of a rule's effect. */
export type FaultEffect = (typeof EFFECTS)[number];

const MEMBERS = new Set<string>([
  'family',
  'method',
  'path',
  'principal',
  'probability',
  'times',
  'after',
  'reason',
  'message',
  'retryAfter',
  'jitterMs',
  ...EFFECTS,
]);

/** effectOf names the one effect of a validated rule. */
export function effectOf(rule: FaultRuleInput): FaultEffect {
  return EFFECTS.find((effect) => rule[effect] !== undefined)!;
}

/**
 * checkRuleShape checks what a rule says on its own (types, ranges, one effect, qualifiers that fit
 * it) and returns the rule with only its known members; which families and methods exist is
 * checked by the Faults that hold the families (faults.ts).
 */
export function checkRuleShape(input: unknown): FaultRuleInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new FaultRuleError('a fault rule must be a JSON object');
  const rule = input as Record<string, unknown>;
  for (const key of Object.keys(rule)) if (!MEMBERS.has(key)) throw new FaultRuleError(`unknown member "${key}" in a fault rule`);
  for (const key of ['family', 'method', 'path', 'principal', 'reason', 'message'] as const) {
    if (rule[key] !== undefined && (typeof rule[key] !== 'string' || rule[key] === '')) throw new FaultRuleError(`"${key}" must be a non-empty string`);
  }
  const probability = rule['probability'];
  if (probability !== undefined && (typeof probability !== 'number' || !(probability > 0 && probability <= 1)))
    throw new FaultRuleError('"probability" must be a number greater than 0 and at most 1');
  countMember(rule, 'times', 1);
  countMember(rule, 'after', 0);
  const effects = EFFECTS.filter((effect) => rule[effect] !== undefined);
  if (effects.length === 0) throw new FaultRuleError(`a fault rule needs one effect: ${EFFECTS.map((effect) => `"${effect}"`).join(', ')}`);
  if (effects.length > 1) throw new FaultRuleError(`a fault rule has one effect; this one has ${effects.map((effect) => `"${effect}"`).join(' and ')}`);
  const effect = effects[0]!;
  const qualifiers: Readonly<Record<string, FaultEffect>> = { reason: 'status', message: 'status', retryAfter: 'status', jitterMs: 'latencyMs' };
  for (const [qualifier, owner] of Object.entries(qualifiers)) {
    if (rule[qualifier] !== undefined && effect !== owner)
      throw new FaultRuleError(`"${qualifier}" qualifies "${owner}", but this rule's effect is "${effect}"`);
  }
  switch (effect) {
    case 'status': {
      const status = rule['status'];
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
        throw new FaultRuleError('"status" must be an HTTP error status from 400 to 599');
      countMember(rule, 'retryAfter', 0);
      break;
    }
    case 'latencyMs':
      countMember(rule, 'latencyMs', 0, 600_000);
      countMember(rule, 'jitterMs', 0, 600_000);
      break;
    case 'reset':
      if (rule['reset'] !== 'before-headers' && rule['reset'] !== 'after-headers')
        throw new FaultRuleError('"reset" must be "before-headers" or "after-headers"');
      break;
    case 'watch':
      if (rule['watch'] !== 'gone' && rule['watch'] !== 'close') throw new FaultRuleError('"watch" must be "gone" or "close"');
      break;
    case 'dropAfterBytes':
      countMember(rule, 'dropAfterBytes', 0);
      break;
    case 'operationError':
      checkOperationError(rule['operationError']);
      break;
  }
  const out: Record<string, unknown> = {};
  for (const key of MEMBERS) if (rule[key] !== undefined) out[key] = rule[key];
  return out as FaultRuleInput;
}

function countMember(rule: Record<string, unknown>, key: string, min: number, max = Number.MAX_SAFE_INTEGER): void {
  const value = rule[key];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new FaultRuleError(`"${key}" must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`);
}

function checkOperationError(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FaultRuleError('"operationError" must be an object with a "code"');
  const error = value as Record<string, unknown>;
  for (const key of Object.keys(error))
    if (!['code', 'message', 'quotaInfo', 'httpStatus'].includes(key)) throw new FaultRuleError(`unknown member "operationError.${key}"`);
  if (typeof error['code'] !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(error['code']))
    throw new FaultRuleError('"operationError.code" must be an upper-case code word such as "QUOTA_EXCEEDED"');
  if (error['message'] !== undefined && (typeof error['message'] !== 'string' || error['message'] === ''))
    throw new FaultRuleError('"operationError.message" must be a non-empty string');
  const status = error['httpStatus'];
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599))
    throw new FaultRuleError('"operationError.httpStatus" must be an HTTP error status from 400 to 599');
  const quota = error['quotaInfo'];
  if (quota === undefined) return;
  if (typeof quota !== 'object' || quota === null || Array.isArray(quota)) throw new FaultRuleError('"operationError.quotaInfo" must be an object');
  const info = quota as Record<string, unknown>;
  for (const key of Object.keys(info))
    if (!['metricName', 'limitName', 'dimensions', 'limit'].includes(key)) throw new FaultRuleError(`unknown member "operationError.quotaInfo.${key}"`);
  for (const key of ['metricName', 'limitName'])
    if (typeof info[key] !== 'string' || info[key] === '') throw new FaultRuleError(`"operationError.quotaInfo.${key}" must be a non-empty string`);
  if (typeof info['limit'] !== 'number' || !Number.isFinite(info['limit'])) throw new FaultRuleError('"operationError.quotaInfo.limit" must be a number');
  const dimensions = info['dimensions'];
  if (
    dimensions !== undefined &&
    (typeof dimensions !== 'object' || dimensions === null || Array.isArray(dimensions) || Object.values(dimensions).some((v) => typeof v !== 'string'))
  ) {
    throw new FaultRuleError('"operationError.quotaInfo.dimensions" must be an object of strings');
  }
}

/** globPattern turns a path glob (`*` within a segment, `**` across segments) into an anchored RegExp. */
export function globPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
