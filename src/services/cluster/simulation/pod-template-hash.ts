/**
 * The `pod-template-hash` of a Deployment's ReplicaSets (upstream `controller.ComputeHash`): a
 * 32-bit FNV-1a over the template (and the collision count), its decimal digits written through
 * rand.SafeEncodeString's alphabet. Go hashes its own dump of the struct, which no other language
 * reproduces byte for byte; here the template's canonical JSON is hashed, so the value has the
 * real format and is stable, as kubectl needs (it compares templates, not hashes).
 */

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** canonicalJson writes a value with sorted keys, dropping undefined members. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** safeEncode maps each character through the alphabet by its code, as rand.SafeEncodeString does. */
function safeEncode(text: string): string {
  return [...text].map((char) => SAFE_ALPHABET[char.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

/** podTemplateHash is the hash label of a template with a Deployment's collision count. */
export function podTemplateHash(template: unknown, collisionCount: number | undefined): string {
  const text = canonicalJson(template) + (collisionCount === undefined ? '' : `#${collisionCount}`);
  return safeEncode(String(fnv32a(text)));
}

/** withoutHashLabel is a template's copy without the `pod-template-hash` label, empty members dropped, for comparing. */
function comparable(template: unknown): string {
  const copy = structuredClone(template ?? {}) as Record<string, unknown>;
  const metadata = (copy['metadata'] ?? {}) as Record<string, unknown>;
  const labels = { ...((metadata['labels'] ?? {}) as Record<string, string>) };
  delete labels['pod-template-hash'];
  metadata['labels'] = labels;
  delete metadata['creationTimestamp'];
  copy['metadata'] = metadata;
  return canonicalJson(pruneEmpty(copy));
}

/** pruneEmpty drops empty objects, empty lists and nulls, as Go's semantic equality treats them as unset. */
function pruneEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneEmpty);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
      const pruned = pruneEmpty(member);
      if (pruned === null || pruned === undefined) continue;
      if (Array.isArray(pruned) && pruned.length === 0) continue;
      if (typeof pruned === 'object' && !Array.isArray(pruned) && Object.keys(pruned as object).length === 0) continue;
      out[key] = pruned;
    }
    return out;
  }
  return value;
}

/** sameTemplate is deployment util's EqualIgnoreHash: the templates agree but for the hash label. */
export function sameTemplate(a: unknown, b: unknown): boolean {
  return comparable(a) === comparable(b);
}
