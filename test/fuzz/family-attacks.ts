import { AUTH, base, request, type Attack, type AttackContext } from './attacks.ts';
import { PATCH_TYPES, prototypePatch, withBadList } from './cluster.ts';
import { CLUSTER_BODY_TYPES, deepBody, deepJson } from './depth.ts';
import { numericQuery } from './numbers.ts';
import { fillPath } from './route-params.ts';
import type { FuzzRequest } from './request.ts';
import { fuzzZip, ZIP_VARIANTS } from './zips.ts';

/**
 * The attacks issue 24 found missing, each aimed where it applies: nesting and alias expansion
 * on every content type a route reads, int64/uint64 bounds on every numeric query parameter, ZIP
 * compression methods on every upload route, null and mistyped items in every list field of a
 * cluster object, and prototype-named keys in every cluster patch type.
 */

const BOUNDARY = 'fuzz_related_1';

/** isUpload is true for a Google media-upload route (`/upload/…`, `/resumable/upload/…`). */
const isUpload = (url: string): boolean => url.startsWith('/upload/') || url.startsWith('/resumable/upload/');

/** related is a multipart/related body: a JSON metadata part, then a media part. */
function related(metadata: string, media: Buffer, mediaType: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${metadata}\r\n--${BOUNDARY}\r\nContent-Type: ${mediaType}\r\n\r\n`),
    media,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const withQuery = (target: string, query: string): string => (query === '' ? target : `${target}${target.includes('?') ? '&' : '?'}${query}`);

/** deepAnyType sends a deep or expanding body in one of the content types the route reads. */
function deepAnyType(c: AttackContext): FuzzRequest {
  const { route, random } = c;
  const target = fillPath(route.url, random);
  if (route.family === 'cluster') {
    const patch = route.method === 'PATCH';
    const type = patch ? random.pick(PATCH_TYPES) : random.pick(CLUSTER_BODY_TYPES);
    const query = type.startsWith('application/apply-patch') ? 'fieldManager=fuzz' : '';
    // A GET or DELETE gets the body too: a DELETE reads DeleteOptions, and unknown bodies must be refused alike.
    return request(c, 'deep any type', { target: withQuery(target, query), headers: [AUTH, ['Content-Type', type]], body: deepBody(type, random) });
  }
  if (isUpload(route.url) && random.chance(0.6)) {
    const media =
      route.family === 'publisher'
        ? fuzzZip(route.url.endsWith('/apk') ? 'apk' : 'bundle', 'deflated', random)
        : Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: x\r\n\r\nx\r\n');
    const mediaType = route.family === 'publisher' ? 'application/octet-stream' : 'message/rfc822';
    if (random.chance(0.5)) {
      return request(c, 'deep any type', {
        method: 'POST',
        target: withQuery(target, 'uploadType=multipart'),
        headers: [AUTH, ['Content-Type', `multipart/related; boundary=${BOUNDARY}`]],
        body: related(deepJson(random), media, mediaType),
      });
    }
    return request(c, 'deep any type', {
      method: 'POST',
      target: withQuery(target, 'uploadType=resumable'),
      headers: [AUTH, ['Content-Type', 'application/json; charset=UTF-8'], ['X-Upload-Content-Type', mediaType]],
      body: deepJson(random),
    });
  }
  return request(c, 'deep any type', {
    target,
    headers: [AUTH, ['Content-Type', random.pick(['application/json', 'application/json; charset=UTF-8'])]],
    body: deepJson(random),
  });
}

/** numericBounds sends a numeric query parameter of the family at or beyond its bounds. */
function numericBounds(c: AttackContext): FuzzRequest {
  const family = c.route.family ?? 'compute';
  const target = withQuery(fillPath(c.route.url, c.random), numericQuery(family, c.random));
  const body = base(c);
  const reads = c.route.method === 'POST' || c.route.method === 'PUT' || c.route.method === 'PATCH';
  if (reads && c.route.method === 'PATCH' && family === 'cluster') {
    return request(c, 'numeric bounds', {
      target,
      headers: [AUTH, ['Content-Type', 'application/merge-patch+json']],
      body: '{"metadata":{"labels":{"fuzz":"n"}}}',
    });
  }
  return request(c, 'numeric bounds', { target, ...(reads ? { body: JSON.stringify(body) } : {}) });
}

/** zipMethods uploads an archive built or broken one of the ways ZIP_VARIANTS names, over media or multipart. */
function zipMethods(c: AttackContext): FuzzRequest {
  const { route, random } = c;
  const kind = route.url.endsWith('/apk') ? 'apk' : 'bundle';
  const zip = fuzzZip(kind, random.pick(ZIP_VARIANTS), random);
  const target = fillPath(route.url, random);
  const mediaType = random.pick(['application/octet-stream', 'application/vnd.android.package-archive', 'application/zip']);
  if (random.chance(0.5))
    return request(c, 'zip methods', {
      method: 'POST',
      target: withQuery(target, 'uploadType=media'),
      headers: [AUTH, ['Content-Type', mediaType]],
      body: zip,
    });
  return request(c, 'zip methods', {
    method: 'POST',
    target: withQuery(target, 'uploadType=multipart'),
    headers: [AUTH, ['Content-Type', `multipart/related; boundary=${BOUNDARY}`]],
    body: related('{}', zip, mediaType),
  });
}

/** nullListItems sends a cluster object one of whose list fields holds null or mistyped items, or is null. */
function nullListItems(c: AttackContext): FuzzRequest {
  const body = base(c) as never;
  const type = c.random.pick(['application/json', 'application/yaml']);
  return request(c, 'null list items', { headers: [AUTH, ['Content-Type', type]], body: withBadList(body, c.random) });
}

/** patchPrototypeKeys sends a cluster patch of any of the four types whose keys or pointers are prototype names. */
function patchPrototypeKeys(c: AttackContext): FuzzRequest {
  const type = c.random.pick(PATCH_TYPES);
  const { body, query } = prototypePatch(type, c.route.url, c.random);
  return request(c, 'patch prototype keys', {
    method: 'PATCH',
    target: withQuery(fillPath(c.route.url, c.random), query),
    headers: [AUTH, ['Content-Type', type]],
    body,
  });
}

/** FamilyAttack is an attack with the routes it is for. */
interface FamilyAttack {
  readonly attack: Attack;
  /** applies says whether the attack is meant for the route. */
  readonly applies: (method: string, url: string, family: string | undefined) => boolean;
}

const bodyMethod = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

/** FAMILY_ATTACKS are the issue 24 attacks, by name, each with where it applies. */
export const FAMILY_ATTACKS: Readonly<Record<string, FamilyAttack>> = {
  'deep any type': { attack: deepAnyType, applies: (method, _url, family) => bodyMethod(method) || (family === 'cluster' && method === 'DELETE') },
  'numeric bounds': { attack: numericBounds, applies: () => true },
  'zip methods': { attack: zipMethods, applies: (method, url, family) => family === 'publisher' && method === 'POST' && /artifacts\/(bundle|apk)$/.test(url) },
  'null list items': {
    attack: nullListItems,
    applies: (method, url, family) => family === 'cluster' && (method === 'POST' || method === 'PUT') && !/review/.test(url),
  },
  'patch prototype keys': { attack: patchPrototypeKeys, applies: (method, _url, family) => family === 'cluster' && method === 'PATCH' },
};
