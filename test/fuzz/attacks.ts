import type { RegisteredRoute } from '../../src/core/route-registry.ts';
import { deepValue, MALFORMED_JSON, plausibleBody, withDeepField, withPrototypeKey, wrongType } from './bodies.ts';
import { hostileQuery } from './queries.ts';
import type { Random } from './random.ts';
import type { FuzzRequest } from './request.ts';
import { fillPath, fillPathWith, paramCount } from './route-params.ts';

/** FUZZ_TOKEN is the admin token the fuzzed server is started with. */
export const FUZZ_TOKEN = 'fuzz-admin';

/** AttackContext is what every attack starts from: a registered route and the run's random source. */
export interface AttackContext {
  readonly route: RegisteredRoute;
  readonly random: Random;
  /** bodyLimit is the server's body limit, for oversized bodies. */
  readonly bodyLimit: number;
  /** Every registered route: batch endpoints are found among them, and aim their parts at the others. */
  readonly routes: readonly RegisteredRoute[];
}

/** Attack generates one request against a route. */
export type Attack = (context: AttackContext) => FuzzRequest;

const JSON_TYPE = ['Content-Type', 'application/json'] as const;
/** AUTH is the admin's Authorization header. */
export const AUTH = ['Authorization', `Bearer ${FUZZ_TOKEN}`] as const;

/** request builds an attack's request: the route's method and a filled path, the admin token, and a JSON body unless told otherwise. */
export function request(context: AttackContext, attack: string, parts: Partial<Omit<FuzzRequest, 'body'>> & { body?: Buffer | string }): FuzzRequest {
  const { route, random } = context;
  const body = typeof parts.body === 'string' ? Buffer.from(parts.body) : parts.body;
  return {
    attack,
    method: parts.method ?? route.method,
    target: parts.target ?? fillPath(route.url, random),
    headers: parts.headers ?? (body === undefined ? [AUTH] : [AUTH, JSON_TYPE]),
    ...(body === undefined ? {} : { body }),
    ...(parts.framing === undefined ? {} : { framing: parts.framing }),
    ...(parts.raw === undefined ? {} : { raw: parts.raw }),
  };
}

/** base is the route's plausible body, or a bare named object. */
export const base = (context: AttackContext): unknown => plausibleBody(context.route.method, context.route.url, context.random) ?? { name: 'x' };

/** BODY_ATTACKS are the attacks that work through a request body: they go mostly to routes that read one. */
export const BODY_ATTACKS: ReadonlySet<string> = new Set([
  'malformed json',
  'wrong types',
  'prototype keys',
  'deep structures',
  'invalid utf-8',
  'oversized body',
  'wrong content type',
]);

/** ATTACKS are the kinds of bad input, each a generator of one request against a route. */
export const ATTACKS: Readonly<Record<string, Attack>> = {
  'malformed json': (c) => request(c, 'malformed json', { body: c.random.pick(MALFORMED_JSON) }),
  'wrong types': (c) => request(c, 'wrong types', { body: JSON.stringify(wrongType(base(c) as never, c.random)) }),
  'prototype keys': (c) => request(c, 'prototype keys', { body: withPrototypeKey(base(c) as never, c.random) }),
  'deep structures': (c) =>
    request(c, 'deep structures', {
      body: c.random.chance(0.3)
        ? deepValue(c.random.pick([101, 10_000, 100_000, 200_000]), c.random.pick(['array', 'object', 'mixed'] as const))
        : withDeepField(base(c) as never, c.random),
    }),
  'invalid utf-8': (c) => {
    const text = JSON.stringify(base(c));
    const at = 1 + c.random.int(Math.max(1, text.length - 2));
    const bad = c.random.pick([[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]]);
    return request(c, 'invalid utf-8', { body: Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad), Buffer.from(text.slice(at))]) });
  },
  'hostile query': (c) =>
    request(c, 'hostile query', {
      target: `${fillPath(c.route.url, c.random)}?${hostileQuery(c.random)}`,
      ...(c.route.method === 'GET' || c.route.method === 'DELETE' ? {} : { body: JSON.stringify(base(c)) }),
    }),
  'oversized body': (c) => request(c, 'oversized body', { body: `{"name":"${'x'.repeat(c.bodyLimit + c.random.int(1000))}"}` }),
  'unframed body': (c) =>
    request(c, 'unframed body', { method: c.random.pick(['DELETE', 'GET', c.route.method]), body: JSON.stringify(base(c)), framing: 'none' }),
  'wrong content type': (c) =>
    request(c, 'wrong content type', {
      body: JSON.stringify(base(c)),
      headers: [
        AUTH,
        [
          'Content-Type',
          c.random.pick([
            'text/plain',
            'application/xml',
            'multipart/mixed',
            'application/json; charset=latin1',
            'application/x-www-form-urlencoded',
            '*/*',
            '',
          ]),
        ],
      ],
    }),
  'bad credentials': (c) => {
    const value = c.random.pick([
      undefined,
      'Bearer',
      'Bearer ',
      'Bearer wrong-token',
      'Basic YWRtaW46YWRtaW4=',
      `Bearer ${'x'.repeat(6000)}`,
      'bearer fuzz-admin',
      `Bearer ${FUZZ_TOKEN} extra`,
      'Bearer \u00e9\u00e9',
    ]);
    const body = plausibleBody(c.route.method, c.route.url, c.random);
    const headers: (readonly [string, string])[] = value === undefined ? [] : [['Authorization', value]];
    if (body !== undefined) headers.push(JSON_TYPE);
    return request(c, 'bad credentials', { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  },
  'long path segment': (c) => {
    const count = paramCount(c.route.url);
    const long = c.random.text(c.random.pick([101, 300, 2_000, 9_000]));
    const target = count === 0 ? `${c.route.url}/${long}` : fillPathWith(c.route.url, c.random, c.random.int(count), long);
    return request(c, 'long path segment', { target });
  },
  'bad url': (c) => {
    const path = fillPath(c.route.url, c.random);
    const cut = path.lastIndexOf('/');
    const target = c.random.pick([
      `${path.slice(0, cut)}/%zz`,
      `${path}%`,
      `${path.slice(0, cut)}/%00`,
      `${path.slice(0, cut)}/%E0%A4%A`,
      `${path.slice(0, cut)}/%2F..%2F..`,
      `${path.slice(0, cut)}/../../x`,
      `${path.replace(/\//g, '//')}`,
      `http://evil.example${path}`,
      `${path}#fragment`,
      `${path.slice(0, cut)}/\u00e9`,
      '*',
      `${path};x=1`,
      `${path}?${'a=1&'.repeat(3000)}`,
    ]);
    return request(c, 'bad url', { target });
  },
  'unknown route': (c) =>
    request(c, 'unknown route', {
      target: c.random.pick([
        `/${c.random.text(12)}`,
        `${fillPath(c.route.url, c.random)}/${c.random.text(5)}`,
        `/compute/v2${fillPath(c.route.url, c.random)}`,
      ]),
      method: c.random.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
    }),
  'bad method': (c) => request(c, 'bad method', { method: c.random.pick(['FOO', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'get']) }),
  'bad batch': (c) => badBatch(c),
  'broken head': (c) =>
    request(c, 'broken head', {
      raw: Buffer.from(
        c.random.pick([
          '\u0000\u0001\u0002garbage\r\n\r\n',
          `GET ${fillPath(c.route.url, c.random)} HTTP/9.9\r\n\r\n`,
          `GET ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
          `GET /${'u'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          `POST ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
          `POST ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`,
          `GET ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nBad Header Line\r\n\r\n`,
          `GET ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nAuthorization: Bearer ${FUZZ_TOKEN}\r\nConnection: close\r\n\r\n`,
          `GET ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nExpect: fancy\r\nConnection: close\r\n\r\n`,
          'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
          `POST ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`,
          `POST ${fillPath(c.route.url, c.random)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${FUZZ_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        ]),
        'latin1',
      ),
    }),
};

const BOUNDARY = 'fuzz_boundary_1';

/** badBatch sends a batch whose parts are bad in the ways batches go wrong, aimed at the route. */
function badBatch(c: AttackContext): FuzzRequest {
  const { random } = c;
  const batches = c.routes.filter((route) => route.method === 'POST' && route.url.startsWith('/batch/'));
  if (batches.length === 0) return ATTACKS['malformed json']!(c);
  const batch = random.pick(batches);
  const part = (method: string, target: string, body?: string): string =>
    [
      `--${BOUNDARY}`,
      'Content-Type: application/http',
      `Content-ID: <fuzz+${parts.length}>`,
      '',
      `${method} ${target} HTTP/1.1`,
      ...(body === undefined ? [] : ['Content-Type: application/json']),
      '',
      body ?? '',
    ].join('\r\n');
  const target = fillPath(c.route.url, random);
  const parts: string[] = [];
  const count = 1 + random.int(4);
  for (let i = 0; i < count; i++) {
    parts.push(
      random.pick([
        () => part('FOO', target),
        () => part(c.route.method, target, random.pick(MALFORMED_JSON)),
        () => part(c.route.method, target),
        () => part('POST', batch.url),
        () => part('GET', `${target}/%zz`),
        () => `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nhello`,
        () => `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\nnot a request line at all`,
        () => part(c.route.method, target, withPrototypeKey({ name: 'x' }, random)),
      ])(),
    );
  }
  const body = random.chance(0.2) ? parts.join('\r\n') : `${parts.join('\r\n')}\r\n--${BOUNDARY}--`;
  const contentType = random.pick([
    `multipart/mixed; boundary=${BOUNDARY}`,
    `multipart/mixed; boundary="${BOUNDARY}"`,
    'multipart/mixed',
    `multipart/mixed; boundary=other`,
  ]);
  return request(c, 'bad batch', { method: 'POST', target: batch.url, headers: [AUTH, ['Content-Type', contentType]], body });
}
