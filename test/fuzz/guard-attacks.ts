/**
 * The guard lane's hostile HTTP: request targets spelled every way a path can be (dot segments in
 * every mix of `.` and `%2e`, backslashes, encoded slashes, absolute forms, fragments), framing
 * two readers could read differently (two Hosts, repeated or conflicting lengths, Transfer-Encoding
 * beside Content-Length or not ending in chunked, obs-fold), requests hidden in bodies and
 * pipelined behind allowed ones, bodies that stop short, upgrades, CONNECT, odd methods and
 * versions, and bytes no request line has. Each request carries a tag header so the lane can match
 * what the guard decided with what reached the upstream.
 */
import type { GuardLimits } from '../../src/guard/guard-server.ts';
import type { Random } from './random.ts';

/** TAG_HEADER carries a request's fuzz tag to the upstream (the guard forwards it as any header). */
export const TAG_HEADER = 'x-fuzz-tag';

/**
 * GUARD_FUZZ_POLICY denies /admin (any case), the admin.local host and what CRS's SQLi signatures
 * at sensitivity 1 match (issue 39: every request goes through the WAF engine, JSON bodies parsed
 * as JSON); anything else is allowed.
 */
export const GUARD_FUZZ_POLICY: Readonly<Record<string, unknown>> = {
  name: 'fuzz',
  advancedOptionsConfig: { jsonParsing: 'STANDARD' },
  rules: [
    { priority: 100, action: 'deny(403)', match: { expr: { expression: "request.path.lower().startsWith('/admin')" } } },
    { priority: 110, action: 'deny(403)', match: { expr: { expression: "request.headers['host'].lower().startsWith('admin.local')" } } },
    { priority: 120, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})" } } },
    { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
  ],
};

/** GUARD_FUZZ_LIMITS keep a body that stops short from holding the lane long. */
export const GUARD_FUZZ_LIMITS: GuardLimits = { bodyTimeoutMs: 250, upstreamTimeoutMs: 3000, concurrency: 64, queue: 64 };

/** deniedPath says whether an upstream reading `target` as a URL parser does would serve a path the policy denies. */
export function deniedPath(target: string): boolean {
  let path: string;
  try {
    path = new URL(target, 'http://upstream.invalid').pathname;
  } catch {
    return false;
  }
  return path.toLowerCase().startsWith('/admin');
}

/** deniedHost says whether a Host the upstream received is one the policy denies. */
export function deniedHost(host: string): boolean {
  return host.trim().toLowerCase().startsWith('admin.local');
}

/** GuardFuzzRequest is one hostile exchange as bytes, with its tag and attack. */
export interface GuardFuzzRequest {
  readonly attack: string;
  readonly tag: string;
  readonly bytes: Buffer;
}

const SEGMENTS = [
  'admin',
  'ADMIN',
  'Admin',
  'ok',
  'x',
  'api',
  '.',
  '..',
  '%2e',
  '%2E',
  '%2e%2e',
  '.%2e',
  '%2e.',
  '%2E%2e',
  '...',
  'a..b',
  '.hidden',
  '%61dmin',
  '%2fadmin',
  '%5cadmin',
  '',
  ';admin',
  'admin;x',
  'x%00',
  '~',
  '%',
  '%zz',
];
const HOSTS = ['public.local', 'admin.local', 'ADMIN.LOCAL', 'admin.local:80', 'public.local:8080', '127.0.0.1', '[::1]', 'admin.local.', 'h'];
const BAD_HOSTS = ['a b', 'h:99999', 'u@admin.local', 'public.local, admin.local', 'evil/x', '[zz]', ''];
const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'get', 'G@T', 'TRACE', 'PROPFIND', 'M-SEARCH'];

/** pathOf is a random path: segments joined by `/`, now and then a backslash. */
function pathOf(random: Random): string {
  const count = 1 + random.int(4);
  let path = '';
  for (let i = 0; i < count; i++) path += (random.chance(0.08) ? '\\' : '/') + random.pick(SEGMENTS);
  if (random.chance(0.25)) path += `?${random.pick(['q=1', '/admin', '../admin', 'a=%2e%2e', '', 'x=1&y=/admin#z'])}`;
  if (random.chance(0.05)) path += '#frag';
  return path;
}

/** targetOf is an origin-form or absolute-form target (or, rarely, another form). */
function targetOf(random: Random): string {
  const path = pathOf(random);
  const roll = random.next();
  if (roll < 0.6) return path;
  if (roll < 0.9) return `${random.pick(['http', 'https', 'HTTP', 'hTTp'])}://${random.pick(HOSTS)}${random.chance(0.1) ? path.slice(1) : path}`;
  return random.pick(['*', 'admin.local:443', 'ftp://h/admin', '//admin', 'admin', 'http://', 'http://u:p@h/admin', 'http:/admin']);
}

/** head is a request head from its line and header lines. */
function head(line: string, headers: readonly string[]): string {
  return `${line}\r\n${headers.map((header) => `${header}\r\n`).join('')}\r\n`;
}

type Attack = (random: Random, tag: string) => string;

const tagLine = (tag: string): string => `X-Fuzz-Tag: ${tag}`;
/** smuggled is a request hidden in another's body, tagged `<tag>s`: it reaches the upstream legitimately only if the guard read it as a request of its own and decided it. */
const smuggled = (path: string, tag: string): string => `GET ${path} HTTP/1.1\r\nHost: public.local\r\n${tagLine(`${tag}s`)}\r\n\r\n`;

/** ATTACKS build one exchange each. */
const ATTACKS: Readonly<Record<string, Attack>> = {
  'path spelling': (random, tag) =>
    head(`${random.pick(['GET', 'GET', 'HEAD', 'POST'])} ${targetOf(random)} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(tag)]),
  'bad host': (random, tag) => head(`GET ${targetOf(random)} HTTP/1.1`, [`Host: ${random.pick(BAD_HOSTS)}`, tagLine(tag)]),
  'two hosts': (random, tag) =>
    head(`GET ${pathOf(random)} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(tag), `${random.pick(['Host', 'host', 'HOST'])}: ${random.pick(HOSTS)}`]),
  'no host': (random, tag) => head(`GET ${pathOf(random)} HTTP/${random.pick(['1.0', '1.1'])}`, [tagLine(tag)]),
  'obs-fold': (random, tag) =>
    head(`GET ${pathOf(random)} HTTP/1.1`, [
      `Host: ${random.pick(HOSTS)}`,
      tagLine(tag),
      random.pick(['X-A: a', 'Host: public.local']),
      ` ${random.pick(['admin.local', 'folded'])}`,
    ]),
  'content-length games': (random, tag) => {
    const body = smuggled(random.pick(['/admin', '/ok', '/x/../admin']), tag);
    const lengths = random.pick([
      ['Content-Length: 0', 'Content-Length: 0'],
      ['Content-Length: 0', `Content-Length: ${body.length}`],
      [`Content-Length: 0, ${body.length}`],
      [`Content-Length: +${body.length}`],
      [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
      ['Transfer-Encoding: chunked', `Content-Length: ${body.length}`],
      [`Content-Length: -1`],
      [`Content-Length: ${body.length} `],
      ['Content-Length: 0'],
      [`Content-Length: ${body.length}`, 'Connection: content-length'],
      [`Content-Length: ${body.length}`, 'Connection: keep-alive, Content-Length, Host'],
    ]);
    return (
      head(`${random.pick(['POST', 'GET', 'DELETE', 'OPTIONS'])} ${pathOf(random)} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(tag), ...lengths]) + body
    );
  },
  'transfer-encoding games': (random, tag) => {
    const inner = smuggled(random.pick(['/admin', '/ok']), tag);
    const coding = random.pick(['chunked', 'gzip', 'chunked, gzip', 'gzip, chunked', ' chunked', 'chunked ', 'CHUNKED', 'identity', 'chunked, chunked', 'x']);
    const chunked = random.pick([
      `0\r\n\r\n${inner}`,
      `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`,
      `zz\r\n${inner}`,
      `5;ext\r\nhello\r\n0\r\n\r\n`,
      inner,
    ]);
    const extra = random.chance(0.3) ? ['Transfer-Encoding: chunked'] : [];
    return (
      head(`POST ${pathOf(random)} HTTP/${random.pick(['1.1', '1.1', '1.0'])}`, [
        `Host: ${random.pick(HOSTS)}`,
        tagLine(tag),
        `Transfer-Encoding: ${coding}`,
        ...extra,
      ]) + chunked
    );
  },
  'pipelined behind an allowed one': (random, tag) =>
    head('GET /ok HTTP/1.1', ['Host: public.local', tagLine(tag)]) +
    head(`GET ${targetOf(random)} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(`${tag}b`)]),
  'body that stops short': (random, tag) =>
    head(`POST ${pathOf(random)} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(tag), `Content-Length: ${10 + random.int(1000)}`]) +
    random.text(random.int(9)),
  upgrade: (random, tag) =>
    head(`GET ${targetOf(random)} HTTP/1.1`, [
      `Host: ${random.pick(HOSTS)}`,
      tagLine(tag),
      'Connection: Upgrade',
      `Upgrade: ${random.pick(['websocket', 'h2c', 'x'])}`,
    ]),
  connect: (random, tag) =>
    head(`CONNECT ${random.pick(['admin.local:443', 'public.local:80', '127.0.0.1:1'])} HTTP/1.1`, [`Host: ${random.pick(HOSTS)}`, tagLine(tag)]),
  'odd method or version': (random, tag) =>
    head(`${random.pick(METHODS)} ${pathOf(random)} ${random.pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'http/1.1', 'HTTP/1.1 x'])}`, [
      `Host: ${random.pick(HOSTS)}`,
      tagLine(tag),
    ]),
  'hop-by-hop headers': (random, tag) =>
    head(`GET ${pathOf(random)} HTTP/1.1`, [
      `Host: ${random.pick(HOSTS)}`,
      tagLine(tag),
      `Connection: ${random.pick(['close', 'keep-alive, Host', 'te, x-a', 'Content-Length'])}`,
      'X-A: 1',
      `Proxy-Connection: ${random.pick(['keep-alive', 'close'])}`,
      `TE: ${random.pick(['trailers', 'chunked'])}`,
    ]),
  'raw bytes': (random, tag) => {
    const alphabet = 'GET /admin HTTP/1.1\r\n:.%\\\u0000\u0001\u007f\u00e9\u00ff \t';
    return `${random.text(1 + random.int(60), alphabet)}\r\nHost: public.local\r\n${tagLine(tag)}\r\n\r\n`;
  },
  'huge head': (random, tag) =>
    head(`GET /${'a'.repeat(random.pick([100, 9000, 20000]))} HTTP/1.1`, [
      `Host: public.local`,
      tagLine(tag),
      `X-Big: ${'b'.repeat(random.pick([10, 17000]))}`,
    ]),
};

/** withBody is a POST of `body` as `type` (its length declared), tagged. */
const withBody = (random: Random, tag: string, type: string, body: string): string =>
  head(`POST ${random.pick(['/', '/search', '/api/items'])} HTTP/1.1`, [
    'Host: public.local',
    tagLine(tag),
    `Content-Type: ${type}`,
    `Content-Length: ${body.length}`,
  ]) + body;

/** REDOS_UNITS repeated make strings shaped to make backtracking regular expressions (CRS's among them) work hard. */
const REDOS_UNITS = ['a', '((', '/*', "'", '"\'', '<a ', '1 or ', 'select(', '\\x', '%27', '-- ', '||', "='", 'char(', ' '];

/** WAF_ATTACKS (issue 39) are bodies hostile to the WAF engine the policy's SQLi rule runs: the lane's judge holds them to no crash, no stall and no 5xx of the guard's own. */
const WAF_ATTACKS: Readonly<Record<string, Attack>> = {
  'waf: ReDoS-shaped body': (random, tag) => {
    const unit = random.pick(REDOS_UNITS);
    const text = unit.repeat(Math.ceil(random.pick([500, 4000, 9000, 30000]) / unit.length)) + random.pick(['!', '', 'x', ')']);
    return random.chance(0.5)
      ? withBody(random, tag, 'application/x-www-form-urlencoded', `q=${text}`)
      : withBody(random, tag, 'application/json', JSON.stringify({ q: text }));
  },
  'waf: deeply nested JSON': (random, tag) => {
    const depth = random.pick([100, 1000, 5000, 50000]);
    const [open, close] = random.pick([
      ['[', ']'],
      ['{"a":', '}'],
      ['[{"a":', '}]'],
    ]);
    // Now and then unclosed, or closed past the inspection limit only.
    const body = open.repeat(depth) + random.pick(['1', '"x\' or 1=1--"', '']) + (random.chance(0.8) ? close.repeat(depth) : '');
    return withBody(random, tag, random.pick(['application/json', 'application/json; charset=utf-8']), body);
  },
  'waf: large multipart body': (random, tag) => {
    const boundary = `----fuzz${random.text(8)}`;
    const part = (name: string, value: string): string => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const body = random.chance(0.5)
      ? `${Array.from({ length: random.pick([200, 3000]) }, (_, i) => part(`f${i}`, random.text(random.int(8)))).join('')}--${boundary}--\r\n`
      : part('file', 'x'.repeat(random.pick([20_000, 200_000, 600_000]))) + (random.chance(0.8) ? `--${boundary}--\r\n` : '');
    return withBody(random, tag, `multipart/form-data; boundary=${random.chance(0.9) ? boundary : 'other'}`, body);
  },
};

const NAMES = Object.keys(ATTACKS);
/** WEIGHTED lists path spellings three times: the decision/forwarding comparison is the lane's point. */
const WEIGHTED = [...NAMES, 'path spelling', 'path spelling', ...Object.keys(WAF_ATTACKS)];

/** guardAttack builds the lane's next hostile exchange. */
export function guardAttack(random: Random, index: number): GuardFuzzRequest {
  const attack = random.pick(WEIGHTED);
  const tag = `t${index}`;
  return { attack, tag, bytes: Buffer.from((ATTACKS[attack] ?? WAF_ATTACKS[attack]!)(random, tag), 'latin1') };
}
