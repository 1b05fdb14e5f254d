import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DiscoveryApi } from '../../core/discovery.ts';
import type { LoadOnFirstUse } from '../../core/lazy.ts';
import type { Spelling } from '../../core/identifiers.ts';
import { FOGBANK_VERSION } from '../../lib/version.ts';
import { renderDirectory, renderDocument, type Address } from './document.ts';
import { entityNotFound } from './errors.ts';
import { DIRECTORY_PREFIX, HOST_DISCOVERY_PREFIX } from './prefixes.ts';

/** REVISION stands where Google puts the document's date: the documents change with fogbank's version. */
const REVISION = `fogbank-${FOGBANK_VERSION}`;

type Query = Record<string, unknown>;

/**
 * registerDiscovery serves the Discovery service (discoveryService.register): the directory, each
 * API's document under the directory's address, and the per-API `$discovery` address. Like
 * Google's, they need no credentials.
 */
export function registerDiscovery(app: FastifyInstance, apis: LoadOnFirstUse<readonly DiscoveryApi[]>): void {
  app.get(`${DIRECTORY_PREFIX}/apis`, async (request) => {
    const query = (request.query ?? {}) as Query;
    const wanted = textOf(query['name']);
    const all = await apis();
    const listed = wanted === undefined ? all : all.filter((api) => api.name === wanted || api.specName === wanted);
    const spelling: Spelling = wanted !== undefined && listed.some((api) => api.specName === wanted) ? 'spec' : 'real';
    return renderDirectory(listed, addressOf(request, spelling));
  });
  app.get<{ Params: { api: string; version: string } }>(`${DIRECTORY_PREFIX}/apis/:api/:version/rest`, async (request) => {
    const { api: name, version } = request.params;
    const api = (await apis()).find((candidate) => (candidate.name === name || candidate.specName === name) && candidate.version === version);
    if (api === undefined) throw entityNotFound();
    return renderDocument(api, addressOf(request, api.name === name ? 'real' : 'spec'), REVISION);
  });
  app.get(`${HOST_DISCOVERY_PREFIX}/rest`, async (request) => {
    const version = textOf(((request.query ?? {}) as Query)['version']);
    const found = pickByHost(await apis(), request.hostname, version);
    if (found === undefined) throw entityNotFound();
    return renderDocument(found.api, addressOf(request, found.spelling), REVISION);
  });
}

/**
 * pickByHost finds the API of a `$discovery` request. On Google each API has its own host
 * (`gmail.googleapis.com`), so the host's first label names it (`gmail.localhost`, or a proxy
 * keeping the real host); on fogbank's one address, a version only one API has (`v3`) names it
 * too. Without a version, the host's API answers its one version.
 */
function pickByHost(apis: readonly DiscoveryApi[], hostname: string, version: string | undefined): { api: DiscoveryApi; spelling: Spelling } | undefined {
  const label = hostname.split('.')[0]?.toLowerCase() ?? '';
  const fits = (api: DiscoveryApi): boolean => version === undefined || api.version === version;
  const named = apis.find((api) => (api.name === label || api.specName === label) && fits(api));
  if (named !== undefined) return { api: named, spelling: named.name === label ? 'real' : 'spec' };
  const byVersion = version === undefined ? [] : apis.filter(fits);
  return byVersion.length === 1 ? { api: byVersion[0]!, spelling: 'real' } : undefined;
}

/** addressOf is where the client reached fogbank: every URL in the answer points there. */
function addressOf(request: FastifyRequest, spelling: Spelling): Address {
  return { rootUrl: `${request.protocol}://${request.host}/`, spelling };
}

/** textOf reads a query parameter given once, or the first of several. */
function textOf(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}
