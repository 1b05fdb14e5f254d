/**
 * What one security-policy change did, as lines a person reads: rules by priority added (+),
 * removed (-), or changed field by field (~ path: before → after), and the policy's own fields.
 * Fingerprints, ids and times change on every write and say nothing: they are left out.
 */

/** DiffLine is one difference. */
export interface DiffLine {
  readonly op: '+' | '-' | '~';
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** IGNORED are the policy fields every write changes. */
const IGNORED = new Set(['fingerprint', 'labelFingerprint', 'id', 'creationTime', 'rules', 'typeSpelling']);

type Policy = { readonly rules?: readonly { readonly priority?: unknown }[] } & Readonly<Record<string, unknown>>;

/** policyDiff lists what changed between two versions of a policy (`before` null for its creation). */
export function policyDiff(before: Policy | null, after: Policy): DiffLine[] {
  const lines: DiffLine[] = [];
  const rulesOf = (policy: Policy | null): Map<string, unknown> =>
    new Map((policy?.rules ?? []).map((rule) => [String(rule.priority), rule] as const).sort((a, b) => Number(a[0]) - Number(b[0])));
  const old = rulesOf(before);
  const now = rulesOf(after);
  const priorities = [...new Set([...old.keys(), ...now.keys()])].sort((a, b) => Number(a) - Number(b));
  for (const priority of priorities) fieldDiff(`rules[${priority}]`, old.get(priority), now.get(priority), lines);
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after)])].filter((name) => !IGNORED.has(name)).sort();
  for (const name of fields) fieldDiff(name, before?.[name], after[name], lines);
  return lines;
}

/** fieldDiff compares two JSON values under `path`, descending into objects. */
function fieldDiff(path: string, a: unknown, b: unknown, into: DiffLine[]): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) {
    into.push({ op: '+', path, after: b });
    return;
  }
  if (b === undefined) {
    into.push({ op: '-', path, before: a });
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) fieldDiff(`${path}.${name}`, a[name], b[name], into);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) into.push({ op: '~', path, before: a, after: b });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
