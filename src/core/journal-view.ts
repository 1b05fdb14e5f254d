/**
 * What a reader of the journal sees: each record with its API method id (the Discovery id such as
 * `compute.instanceTemplates.insert`, or the cluster's verb and resource such as `watch events`),
 * its principal and its time in RFC 3339, and the filters of `GET /_fogbank/requests`.
 */
import type { Authenticator } from './auth.ts';
import type { DiscoveryApi } from './discovery.ts';
import type { CapturedBody, JournalRecord, RequestJournal } from './journal.ts';
import type { ServiceDefinition } from './service.ts';

/** JournalEntry is one request as the admin API answers it. */
export interface JournalEntry {
  readonly time: string;
  readonly family: string;
  /** The API method id, or `HTTP-METHOD /path` for a request that matched none. */
  readonly method: string;
  /** The email of the token's principal; null without a token or with one nobody issued. */
  readonly principal: string | null;
  readonly status: number;
  readonly latencyMs: number;
  readonly fault: unknown;
  readonly httpMethod: string;
  /** The path as the client sent it, without the query (which may carry an access token). */
  readonly path: string;
  /** The request's body, when the journal records bodies and the reader asked for them. */
  readonly requestBody?: BodyView;
  /** The answer's body, likewise. */
  readonly responseBody?: BodyView;
  /** A guard's decision in Cloud Armor's request-log shape (JournalRecord.jsonPayload), when there is one. */
  readonly jsonPayload?: unknown;
}

/**
 * BodyView is a kept body as a reader sees it: UTF-8 text when the kept bytes are valid UTF-8,
 * base64 otherwise; `truncated` when the body was longer than the journal keeps.
 */
export interface BodyView {
  readonly contentType: string | null;
  /** The body's whole size in bytes; null for a streamed answer, whose bytes are not kept. */
  readonly size: number | null;
  readonly truncated: boolean;
  readonly text?: string;
  readonly base64?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** bodyView shows a kept body; a cut through a multi-byte character still reads as text. */
export function bodyView(body: CapturedBody): BodyView {
  const truncated = body.size === null || body.bytes.length < body.size;
  const head = { contentType: body.contentType ?? null, size: body.size, truncated };
  // At most three bytes of a character cut off by the limit.
  for (let cut = 0; cut <= (truncated ? 3 : 0) && cut <= body.bytes.length; cut++) {
    try {
      return { ...head, text: utf8.decode(body.bytes.subarray(0, body.bytes.length - cut)) };
    } catch {
      // Not text at this length.
    }
  }
  return { ...head, base64: body.bytes.toString('base64') };
}

/** JournalFilter narrows a read of the journal; every given field must match. */
export interface JournalFilter {
  readonly family?: string;
  /** An exact method id, or a prefix ending in `*` (`compute.instanceTemplates.*`). */
  readonly method?: string;
  /** An exact status (404) or a class (`4xx`). */
  readonly status?: number | string;
  /** Only requests at or after this time (milliseconds since the epoch). */
  readonly since?: number;
  /** At most this many, newest first. */
  readonly limit?: number;
  /** Whether entries carry the kept request and response bodies (the journal keeps them only when started with a body limit). */
  readonly bodies?: boolean;
}

/** DiscoveryRoute is one Discovery method's request line as a pattern over concrete paths. */
export interface DiscoveryRoute {
  readonly httpMethod: string;
  readonly pattern: RegExp;
  /** Literal path segments: the more, the more specific (`messages/send` before `messages/{id}`). */
  readonly literals: number;
  readonly id: string;
}

/** routePattern turns a Discovery path (`projects/{project}/…`, `{+name}`) into a pattern over concrete paths. */
export function routePattern(path: string): RegExp {
  const source = path
    .split(/(\{\+?[^}]*\})/)
    .map((part) => (part.startsWith('{+') ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

/** discoveryRoutes lists each method's request lines (and its upload forms), most specific first. */
export function discoveryRoutes(apis: readonly DiscoveryApi[]): DiscoveryRoute[] {
  const routes: DiscoveryRoute[] = [];
  for (const api of apis) {
    for (const method of api.methods) {
      const path = `/${api.servicePath}${method.path}`;
      const add = (httpMethod: string, each: string): void => {
        routes.push({
          httpMethod,
          pattern: routePattern(each),
          literals: each.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length,
          id: method.id,
        });
      };
      add(method.httpMethod, path);
      if (method.mediaUpload === undefined) continue;
      // The media forms of an upload method (simple and multipart, resumable), and the PUTs that
      // carry a resumable session's bytes: all the same method.
      for (const each of [`/upload${path}`, `/resumable/upload${path}`]) {
        add(method.httpMethod, each);
        if (method.httpMethod !== 'PUT') add('PUT', each);
      }
    }
  }
  return routes.sort((a, b) => b.literals - a.literals);
}

/** JournalReader turns records into entries, resolving method ids and principals. */
export class JournalReader {
  readonly #families: ReadonlyMap<string, ServiceDefinition>;
  readonly #auth: Authenticator;
  readonly journal: RequestJournal;
  #routes: Promise<DiscoveryRoute[]> | undefined;
  #routesLoaded: readonly DiscoveryRoute[] = [];

  constructor(journal: RequestJournal, services: readonly ServiceDefinition[], auth: Authenticator) {
    this.journal = journal;
    this.#families = new Map(services.map((service) => [service.name, service]));
    this.#auth = auth;
  }

  /** ready loads the families' Discovery descriptions once (the method ids of the Google families). */
  async ready(): Promise<void> {
    this.#routes ??= (async () => {
      const apis = await Promise.all([...this.#families.values()].map((service) => service.discovery?.().catch(() => []) ?? []));
      return discoveryRoutes(apis.flat());
    })();
    this.#routesLoaded = await this.#routes;
  }

  /** entryOf resolves one record (call `ready` first), with its bodies when asked. */
  entryOf(record: JournalRecord, bodies = false): JournalEntry {
    const query = record.url.indexOf('?');
    const path = query < 0 ? record.url : record.url.slice(0, query);
    const entry: JournalEntry = {
      time: new Date(record.time).toISOString(),
      family: record.family,
      method: this.#methodOf(record, path),
      principal: this.#principalOf(record.authorization),
      status: record.status,
      latencyMs: record.latencyMs,
      fault: record.fault,
      httpMethod: record.httpMethod,
      path,
      ...(record.jsonPayload === undefined ? {} : { jsonPayload: record.jsonPayload }),
    };
    if (!bodies || (record.requestBody === undefined && record.responseBody === undefined)) return entry;
    return {
      ...entry,
      ...(record.requestBody === undefined ? {} : { requestBody: bodyView(record.requestBody) }),
      ...(record.responseBody === undefined ? {} : { responseBody: bodyView(record.responseBody) }),
    };
  }

  /** read answers the filter, newest first. */
  async read(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    await this.ready();
    const limit = filter.limit ?? this.journal.capacity;
    const entries: JournalEntry[] = [];
    for (const record of this.journal.newestFirst()) {
      if (entries.length >= limit) break;
      if (filter.since !== undefined && record.time < filter.since) break;
      if (!recordMatches(record, filter)) continue;
      const entry = this.entryOf(record, filter.bodies === true);
      if (methodMatches(entry.method, filter.method)) entries.push(entry);
    }
    return entries;
  }

  /** matches says whether a resolved entry passes the filter (for live followers). */
  matches(record: JournalRecord, entry: JournalEntry, filter: JournalFilter): boolean {
    return (filter.since === undefined || record.time >= filter.since) && recordMatches(record, filter) && methodMatches(entry.method, filter.method);
  }

  #methodOf(record: JournalRecord, path: string): string {
    const family = this.#families.get(record.family);
    const own = family?.requestMethodId?.(record.httpMethod, record.url);
    if (own !== undefined) return own;
    const query = record.routedUrl.indexOf('?');
    const routed = query < 0 ? record.routedUrl : record.routedUrl.slice(0, query);
    const httpMethod = record.httpMethod === 'HEAD' ? 'GET' : record.httpMethod;
    for (const route of this.#routesLoaded) if (route.httpMethod === httpMethod && route.pattern.test(routed)) return route.id;
    return `${record.httpMethod} ${path}`;
  }

  #principalOf(authorization: string | undefined): string | null {
    if (authorization === undefined) return null;
    let header = authorization;
    // kubectl sends the token as a Basic password over plain HTTP (the kubeconfig fogbank writes).
    const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization);
    if (basic !== null) {
      const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
      header = `Bearer ${decoded.slice(decoded.indexOf(':') + 1)}`;
    }
    const identity = this.#auth.identify(header);
    return identity.kind === 'principal' ? identity.principal.email : null;
  }
}

/** recordMatches checks the filters that need no resolving. */
function recordMatches(record: JournalRecord, filter: JournalFilter): boolean {
  if (filter.family !== undefined && record.family !== filter.family) return false;
  if (filter.status !== undefined) {
    if (typeof filter.status === 'number') return record.status === filter.status;
    return String(record.status)[0] === filter.status[0];
  }
  return true;
}

/** methodMatches compares a method id with the filter's (exact, or a prefix ending in `*`). */
function methodMatches(method: string, wanted: string | undefined): boolean {
  if (wanted === undefined) return true;
  return wanted.endsWith('*') ? method.startsWith(wanted.slice(0, -1)) : method === wanted;
}
