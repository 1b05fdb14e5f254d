import type { FastifyRequest } from 'fastify';

/**
 * Links are built from the address the client used (scheme, host and the `/compute/v1/` prefix
 * it called), so self-links work for whatever endpoint override a client was given.
 */
export interface Links {
  /** The API root with a trailing slash, e.g. `http://127.0.0.1:8780/compute/v1/`. */
  readonly base: string;
}

/** linksFor derives the API root from the request. */
export function linksFor(request: FastifyRequest): Links {
  const host = request.headers.host ?? `${request.hostname}`;
  // originalUrl: unprefixed requests are routed as /compute/v1/… (pathAliases), but answered as sent.
  const prefix = request.originalUrl.startsWith('/compute/v1/') ? '/compute/v1/' : '/';
  return { base: `${request.protocol}://${host}${prefix}` };
}

/** link turns a resource path (`projects/p/global/...`) into a full URL. */
export function link(links: Links, path: string): string {
  return `${links.base}${path}`;
}

/**
 * resourcePathOf reduces a resource reference from a request body — full URL with any host,
 * with or without `/compute/v1/`, or a partial form — to its path, e.g.
 * `projects/p/global/networks/default`. Partial forms without `projects/` get the request's
 * project. Returns undefined when the text is not a resource reference at all.
 */
export function resourcePathOf(reference: string, project: string): string | undefined {
  let path = reference.trim();
  const url = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(path);
  if (url !== null) path = url[1] ?? '';
  path = path.replace(/^\/+/, '');
  const versioned = /^(?:compute\/)?(?:v1|beta|alpha)\/(.*)$/.exec(path);
  if (versioned !== null) path = versioned[1]!;
  if (path === '') return undefined;
  if (path.startsWith('projects/')) return path;
  if (/^(global|regions|zones)\//.test(path)) return `projects/${project}/${path}`;
  return undefined;
}
