import { clusterBody, isClusterPath } from './cluster.ts';
import type { Random } from './random.ts';

/**
 * Bodies for the fuzzer: a plausible body for a route (chosen by what the route's path ends in,
 * so a new collection gets a generic body until it is taught a better one), and the ways to
 * break one.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** PROTOTYPE_KEYS are member names that reach Object.prototype when looked up carelessly. */
export const PROTOTYPE_KEYS = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'propertyIsEnumerable',
  'toLocaleString',
] as const;

const RULE: Json = { priority: 1000, action: 'allow', description: 'fuzz', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['10.0.0.0/8'] } } };
/** Rule expressions: plausible ones, and ones that name Object.prototype's members where an identifier or key goes. */
const EXPRESSIONS: readonly string[] = [
  "request.path.startsWith('/admin') && origin.region_code == 'US'",
  "request.headers['__proto__'] == 'x'",
  "request.constructor == 'x'",
  'toString()',
  "request.path.valueOf() == 'a'",
  "evaluatePreconfiguredExpr('constructor')",
  "evaluatePreconfiguredWaf('__proto__', {'sensitivity': 1})",
  "inIpRange(origin.ip, 'hasOwnProperty')",
  'has(request.headers.constructor)',
  "int('__proto__') == 1",
];
const exprRule = (random: Random): Json => ({ priority: 2000, action: 'deny(403)', match: { expr: { expression: random.pick(EXPRESSIONS) } } });

/** plausibleBody is a valid-looking body for the route, or undefined for routes that take none. */
export function plausibleBody(method: string, pattern: string, random: Random): Json | undefined {
  if (isClusterPath(pattern)) return clusterBody(method, pattern, random) as Json | undefined;
  const mail = mailBody(method, pattern);
  if (mail !== undefined) return mail;
  const tail = pattern.slice(pattern.lastIndexOf('/') + 1);
  const name = `fz-${random.text(8, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  if (method === 'POST' && tail === 'instanceTemplates') {
    return {
      name,
      description: 'fuzz',
      properties: {
        machineType: 'e2-small',
        labels: { env: 'fuzz' },
        disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '10' } }],
        networkInterfaces: [{ network: 'global/networks/default' }],
      },
    };
  }
  if (method === 'POST' && tail === 'securityPolicies') return { name, description: 'fuzz', rules: [RULE] };
  if (method === 'PATCH') return { description: 'patched', rules: [exprRule(random)] };
  if (tail === 'addRule' || tail === 'patchRule') return random.chance(0.5) ? RULE : exprRule(random);
  if (tail === 'setLabels') return { labels: { env: 'fuzz' }, labelFingerprint: 'AAAAAAAAAAA=' };
  // The console's compute actions (src/console/server/compute-workload-routes.ts).
  if (pattern.startsWith('/_fogbank/console/api/compute/') && tail === 'resize') return { size: random.pick([0, 1, 2, -1, '2', 1.5, null]) };
  if (pattern.startsWith('/_fogbank/console/api/compute/') && tail === 'security-policy')
    return {
      slot: random.pick(['securityPolicy', 'edgeSecurityPolicy', 'constructor']),
      policy: random.pick(['p/global/fuzz-policy', 'p/global/missing', null, '..']),
    };
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') return { name, description: 'fuzz' };
  return undefined;
}

/** MAIL_RAW is a small RFC 822 message as the mail API's `raw` carries it. */
export const MAIL_RAW = Buffer.from('From: fuzz@example.com\r\nTo: someone@example.com\r\nSubject: fuzz\r\n\r\nfuzz\r\n').toString('base64url');

function mailBody(method: string, pattern: string): Json | undefined {
  if (!/^\/(?:upload\/|resumable\/upload\/)?gmail\//.test(pattern)) return undefined;
  if (pattern.endsWith('/messages/send')) return { raw: MAIL_RAW };
  if (pattern.endsWith('/drafts/send')) return { id: 'r-missing', message: { raw: MAIL_RAW } };
  if (pattern.endsWith('/drafts') || pattern.endsWith('/drafts/:id')) return { message: { raw: MAIL_RAW } };
  if (pattern.endsWith('/modify')) return { addLabelIds: ['STARRED'], removeLabelIds: ['UNREAD'] };
  if (pattern.endsWith('/labels') && method === 'POST') return { name: 'fuzz-label' };
  return undefined;
}

/** MALFORMED_JSON are texts no JSON parser accepts, or accepts only loosely. */
export const MALFORMED_JSON: readonly string[] = [
  '{',
  '{"name": ',
  '{"name": "x"} trailing',
  "{'name': 'x'}",
  '{"name": NaN}',
  '{"name": Infinity}',
  '{"a": 1,}',
  '[1, 2,, 3]',
  '{"a" 1}',
  '{"a": "\\x41"}',
  '{"a": "\\ud800"}',
  '{"a": "unterminated',
  '// comment\n{}',
  '\uFEFF{}',
  '{"a": 01}',
  '{"a": 1e999}',
  '{"a": -}',
  '{"a": tru}',
  '{"a":\u0000}',
  'null',
  'true',
  '"just a string"',
  '12345678901234567890123',
  '[]',
  '{"a": {"b": [}]}',
];

/** wrongType replaces one member somewhere in `body` with a value of a type no field there has. */
export function wrongType(body: Json, random: Random): Json {
  const odd: Json[] = [1, -1, 1.5, 1e308, '', 'text', true, false, [], [1, 'a'], {}, { x: 1 }, '9'.repeat(40), '-9223372036854775809', '1e5'];
  return replaceSomewhere(body, random, () => random.pick(odd));
}

/** withPrototypeKey adds a prototype-named member at a random object in `body`. */
export function withPrototypeKey(body: Json, random: Random): string {
  const key = random.pick(PROTOTYPE_KEYS);
  const value: Json = random.pick([1, 'x', {}, { polluted: true }, [], null]);
  // Built as text: an object literal with a `__proto__` member would set the prototype instead.
  const text = JSON.stringify(replaceSomewhere(body, random, () => null, true));
  return text.replace('"__marker__":"__marker__"', `${JSON.stringify(key)}:${JSON.stringify(value)}`);
}

/** deepValue is a value nested `depth` levels of `[`, `{"priority":` or both alternating around a leaf, as text. */
export function deepValue(depth: number, kind: 'array' | 'object' | 'mixed', leaf = '1'): string {
  if (kind === 'array') return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
  if (kind === 'object') return `${'{"priority":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
  const pairs = depth >> 1;
  const odd = depth % 2 === 1;
  return `${'[{"priority":'.repeat(pairs)}${odd ? '[' : ''}${leaf}${odd ? ']' : ''}${'}]'.repeat(pairs)}`;
}

/** withDeepField puts a deep value at a random place in `body`, returning the JSON text. */
export function withDeepField(body: Json, random: Random): string {
  const depth = random.pick([99, 100, 101, 10_000, 100_000, 200_000]);
  const deep = deepValue(depth, random.pick(['array', 'object', 'mixed'] as const));
  return JSON.stringify(replaceSomewhere(body, random, () => '__deep__')).replace('"__deep__"', deep);
}

/**
 * replaceSomewhere walks to a random member of `body` and replaces its value (or, with `asKey`,
 * adds a member there) using `make`. Bodies here are small, so the walk is shallow.
 */
function replaceSomewhere(body: Json, random: Random, make: () => Json, asKey = false): Json {
  if (Array.isArray(body)) {
    if (body.length === 0 || random.chance(0.3)) return asKey ? [...body, { __marker__: '__marker__' }] : [...body, make()];
    const index = random.int(body.length);
    return body.map((item, at) => (at === index ? replaceSomewhere(item, random, make, asKey) : item));
  }
  if (typeof body === 'object' && body !== null) {
    const keys = Object.keys(body);
    if (keys.length === 0 || random.chance(0.35))
      return asKey ? { ...body, __marker__: '__marker__' } : { ...body, [random.pick(keys.length === 0 ? ['name'] : keys)]: make() };
    const key = random.pick(keys);
    return { ...body, [key]: replaceSomewhere(body[key]!, random, make, asKey) };
  }
  return asKey ? { __marker__: '__marker__' } : make();
}
