/**
 * Discovery documents (`discovery#restDescription`) and the directory (`discovery#directoryList`)
 * rendered from what the families declare (core/discovery.ts), pointing at the address the client
 * reached fogbank on, in the spelling of the API name the client asked for.
 */

import type { DiscoveryApi, DiscoveryMethod, DiscoveryParameter } from '../../core/discovery.ts';
import { type Spelling, Vocabulary } from '../../core/identifiers.ts';

type Json = Record<string, unknown>;

/** STANDARD_PARAMETERS are the parameters every method of a Google API takes (the document's top-level `parameters`). */
const STANDARD_PARAMETERS: Readonly<Record<string, DiscoveryParameter>> = {
  '$.xgafv': { type: 'string', location: 'query', enum: ['1', '2'], description: 'V1 error format.' },
  access_token: { type: 'string', location: 'query', description: 'OAuth access token.' },
  alt: { type: 'string', location: 'query', enum: ['json', 'media', 'proto'], default: 'json', description: 'Data format for response.' },
  callback: { type: 'string', location: 'query', description: 'JSONP' },
  fields: { type: 'string', location: 'query', description: 'Selector specifying which fields to include in a partial response.' },
  key: { type: 'string', location: 'query', description: 'API key (fogbank reads bearer tokens only).' },
  oauth_token: { type: 'string', location: 'query', description: 'OAuth 2.0 token for the current user.' },
  prettyPrint: { type: 'boolean', location: 'query', default: 'true', description: 'Returns response with indentations and line breaks.' },
  quotaUser: { type: 'string', location: 'query', description: 'Available to use for quota purposes for server-side applications.' },
  uploadType: { type: 'string', location: 'query', description: 'Legacy upload protocol for media (e.g. "media", "multipart").' },
  upload_protocol: { type: 'string', location: 'query', description: 'Upload protocol for media (e.g. "raw", "multipart").' },
};

/** Address is where the client reached fogbank and how it spelled the API's name. */
export interface Address {
  /** `http://host:port/`, with the trailing slash Discovery's rootUrl has. */
  readonly rootUrl: string;
  readonly spelling: Spelling;
}

/** apiName is the API's name in a spelling (the real one when the spec has no other). */
export function apiName(api: DiscoveryApi, spelling: Spelling): string {
  return spelling === 'spec' && api.specName !== undefined ? api.specName : api.name;
}

/** methodPath is a method's path in the client's spelling: Gmail's and Play's paths start with the API's name and version. */
function methodPath(api: DiscoveryApi, method: DiscoveryMethod, spelling: Spelling): string {
  const real = `${api.name}/${api.version}/`;
  return spelling === 'spec' && api.specName !== undefined && method.path.startsWith(real)
    ? `${api.specName}/${api.version}/${method.path.slice(real.length)}`
    : method.path;
}

/** spellScope writes a scope in the client's spelling of the API (the spec's `…/auth/mail.send` for `mail`). */
function spellScope(api: DiscoveryApi, scope: string, spelling: Spelling): string {
  return spelling === 'real' ? scope : new Vocabulary(api.scopeTerms ?? []).spell(scope, spelling);
}

function renderMethod(api: DiscoveryApi, method: DiscoveryMethod, spelling: Spelling): Json {
  const path = methodPath(api, method, spelling);
  const scopes = method.scopes.map((scope) => spellScope(api, scope, spelling));
  const out: Json = {
    id: method.id,
    path,
    flatPath: path,
    httpMethod: method.httpMethod,
    parameters: method.parameters,
    parameterOrder: method.parameterOrder,
    ...(method.request === undefined ? {} : { request: { $ref: method.request } }),
    ...(method.response === undefined ? {} : { response: { $ref: method.response } }),
    scopes,
    ...(method.description === undefined ? {} : { description: method.description }),
  };
  if (method.mediaUpload !== undefined) {
    const below = `${api.servicePath}${path}`;
    out['supportsMediaUpload'] = true;
    out['mediaUpload'] = {
      accept: method.mediaUpload.accept,
      maxSize: String(method.mediaUpload.maxSize),
      protocols: { simple: { multipart: true, path: `/upload/${below}` }, resumable: { multipart: true, path: `/resumable/upload/${below}` } },
    };
  }
  return out;
}

interface ResourceNode {
  readonly methods: Json;
  readonly resources: Record<string, ResourceNode>;
}

/** resourcesOf nests the methods by their ids (`gmail.users.messages.send` → users → messages → send). */
function resourcesOf(api: DiscoveryApi, spelling: Spelling): Json {
  const root: ResourceNode = { methods: {}, resources: {} };
  for (const method of api.methods) {
    const [, ...names] = method.id.split('.');
    const methodName = names.pop()!;
    let node = root;
    for (const name of names) node = node.resources[name] ??= { methods: {}, resources: {} };
    node.methods[methodName] = renderMethod(api, method, spelling);
  }
  return pruneEmpty(root.resources);
}

/** pruneEmpty renders the nesting, leaving out the empty `methods` and `resources` members. */
function pruneEmpty(resources: Readonly<Record<string, ResourceNode>>): Json {
  return Object.fromEntries(
    Object.entries(resources).map(([name, node]) => [
      name,
      {
        ...(Object.keys(node.methods).length === 0 ? {} : { methods: node.methods }),
        ...(Object.keys(node.resources).length === 0 ? {} : { resources: pruneEmpty(node.resources) }),
      },
    ]),
  );
}

/** renderDocument is the API's Discovery document, every URL in it pointing at `address`. */
export function renderDocument(api: DiscoveryApi, address: Address, revision: string): Json {
  const name = apiName(api, address.spelling);
  const scopes = Object.fromEntries(Object.entries(api.scopes).map(([scope, description]) => [spellScope(api, scope, address.spelling), { description }]));
  return {
    kind: 'discovery#restDescription',
    discoveryVersion: 'v1',
    id: `${name}:${api.version}`,
    name,
    version: api.version,
    revision,
    title: api.title,
    description: api.description,
    ownerDomain: 'google.com',
    ownerName: 'Google',
    documentationLink: api.documentationLink,
    protocol: 'rest',
    rootUrl: address.rootUrl,
    mtlsRootUrl: address.rootUrl,
    servicePath: api.servicePath,
    basePath: api.servicePath === '' ? '' : `/${api.servicePath}`,
    baseUrl: `${address.rootUrl}${api.servicePath}`,
    batchPath: api.batchPath,
    parameters: STANDARD_PARAMETERS,
    auth: { oauth2: { scopes } },
    schemas: api.schemas,
    resources: resourcesOf(api, address.spelling),
  };
}

/** renderDirectory is the `discovery#directoryList` of the APIs given, each linked to its document at `address`. */
export function renderDirectory(apis: readonly DiscoveryApi[], address: Address): Json {
  return {
    kind: 'discovery#directoryList',
    discoveryVersion: 'v1',
    items: apis.map((api) => {
      const name = apiName(api, address.spelling);
      return {
        kind: 'discovery#directoryItem',
        id: `${name}:${api.version}`,
        name,
        version: api.version,
        title: api.title,
        description: api.description,
        discoveryRestUrl: `${address.rootUrl}discovery/v1/apis/${name}/${api.version}/rest`,
        discoveryLink: `./apis/${name}/${api.version}/rest`,
        documentationLink: api.documentationLink,
        preferred: true,
      };
    }),
  };
}
