/**
 * What a reader of the journal sees: each record with its API method id (the Discovery id such as
 * `compute.instanceTemplates.insert`, or the cluster's verb and resource such as `watch events`),
 * its principal and its time in RFC 3339, and the filters of `GET /_fogbank/requests`.
 */
import type { Authenticator } from './auth.ts';
import type { DiscoveryApi } from './discovery.ts';
import type { JournalRecord, RequestJournal } from './journal.ts';
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
}

/** routeKey normalises a route pattern or a Discovery path: every parameter is `*`. */
export function routeKey(httpMethod: string, path: string): string {
  return `${httpMethod} ${path.replace(/\{\+?[^}]*\}|:[A-Za-z_][\w-]*/g, '*').replace(/\/+$/, '')}`;
}

/** discoveryRoutes maps each method's request line, as routeKey writes it, to its Discovery id. */
export function discoveryRoutes(apis: readonly DiscoveryApi[]): Map<string, string> {
  const routes = new Map<string, string>();
  for (const api of apis) {
    for (const method of api.methods) {
      routes.set(routeKey(method.httpMethod, `/${api.servicePath}${method.path}`), method.id);
      // The media forms of an upload method: simple and multipart, and resumable.
      if (method.mediaUpload !== undefined) {
        for (const base of ['/upload/', '/resumable/upload/']) routes.set(routeKey(method.httpMethod, `${base}${api.servicePath}${method.path}`), method.id);
      }
    }
  }
  return routes;
}

/** JournalReader turns records into entries, resolving method ids and principals. */
export class JournalReader {
  readonly #families: ReadonlyMap<string, ServiceDefinition>;
  readonly #auth: Authenticator;
  readonly journal: RequestJournal;
  #routes: Promise<Map<string, string>> | undefined;
  #routesLoaded: Map<string, string> | undefined;

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

  /** entryOf resolves one record (call `ready` first). */
  entryOf(record: JournalRecord): JournalEntry {
    const query = record.url.indexOf('?');
    const path = query < 0 ? record.url : record.url.slice(0, query);
    return {
      time: new Date(record.time).toISOString(),
      family: record.family,
      method: this.#methodOf(record, path),
      principal: this.#principalOf(record.authorization),
      status: record.status,
      latencyMs: record.latencyMs,
      fault: record.fault,
      httpMethod: record.httpMethod,
      path,
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
      const entry = this.entryOf(record);
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
    const own = family?.requestMethodId?.(record.httpMethod, record.url, record.route);
    if (own !== undefined) return own;
    const key = routeKey(record.httpMethod === 'HEAD' ? 'GET' : record.httpMethod, record.route ?? path);
    return this.#routesLoaded?.get(key) ?? `${record.httpMethod} ${record.route ?? path}`;
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
