// Writes test/fixtures/discovery/google-methods.json: for every method fogbank's Discovery
// documents describe, the facts Google's own description states — id, httpMethod, path, flatPath,
// parameter names with location, type, format, required and repeated, parameterOrder, request and
// response schema ids, mediaUpload. The test (src/services/discovery/discovery.test.ts) compares
// fogbank's served documents against it. Google's documents are third-party: only these facts are
// kept, never the documents.
//
//   node --import tsx scripts/discovery-fixture.ts DOCUMENTS_DIR [GCLOUD_COMPUTE_V1_DIR]
//
// DOCUMENTS_DIR holds Google's published documents (an API whose document it lacks keeps the facts
// the fixture already has, its new methods read from gcloud's client), as googleapis/google-api-go-client carries them
// (compute/v1/compute-api.json, gmail/v1/gmail-api.json, androidpublisher/v3/androidpublisher-api.json)
// or as discovery-artifact-manager does (compute.v1.json, …). The compute document grew past what
// could be fetched here in mid-2023; methods and parameters Google added since (regional security
// policy rule methods, updateMask, serviceProjectNumber) are read from gcloud's generated compute v1
// client (GCLOUD_COMPUTE_V1_DIR: lib/googlecloudsdk/generated_clients/apis/compute/v1 of the Cloud
// SDK), which Google generates from the same document; each method records which source it came from.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiscoveryApi } from '../src/core/discovery.ts';
import { COMPUTE_DISCOVERY } from '../src/services/compute/discovery.ts';
import { MAIL_DISCOVERY } from '../src/services/mail/discovery.ts';
import { PUBLISHER_DISCOVERY } from '../src/services/publisher/discovery.ts';

/** Facts is one parameter's or field's facts as written to the fixture (type, location, format, …). */
type Facts = Record<string, unknown>;

/** DiscoveryMethod is the part of a Discovery document's method this script reads. */
interface DiscoveryMethod {
  id: string;
  httpMethod: string;
  path: string;
  flatPath?: string;
  parameterOrder?: string[];
  parameters?: Record<string, Facts>;
  request?: { $ref: string };
  response?: { $ref: string };
  mediaUpload?: unknown;
}

/** DiscoveryResource is a Discovery document's resource: nested resources and methods. */
interface DiscoveryResource {
  resources?: Record<string, DiscoveryResource>;
  methods?: Record<string, DiscoveryMethod>;
}

/** DiscoveryDocument is the part of a Discovery document this script reads. */
interface DiscoveryDocument extends DiscoveryResource {
  revision: string;
  servicePath: string;
  batchPath: string;
}

/** MethodFacts is one method's entry in the fixture. */
interface MethodFacts {
  id: string;
  httpMethod: string;
  path: string;
  flatPath: string;
  parameterOrder: string[];
  parameters: Record<string, Facts>;
  request?: string;
  response?: string;
  mediaUpload?: unknown;
  source: string;
}

/** GcloudMethod is what gcloud's apitools client says of one method. */
interface GcloudMethod {
  httpMethod: string;
  order: string[];
  path: string[];
  query: string[];
  relativePath: string;
  requestType: string;
  requestField: string;
  response: string;
}

const [documentsDir, gcloudDir] = process.argv.slice(2);
if (documentsDir === undefined) {
  console.error('usage: node --import tsx scripts/discovery-fixture.ts DOCUMENTS_DIR [GCLOUD_COMPUTE_V1_DIR]');
  process.exit(2);
}
const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../test/fixtures/discovery/google-methods.json');

/** EARLIER is the fixture as it stands: an API whose document DOCUMENTS_DIR lacks keeps the facts written from it before. */
const EARLIER = existsSync(OUT)
  ? (JSON.parse(readFileSync(OUT, 'utf8')) as { apis: Record<string, { revision: string; servicePath: string; batchPath: string; methods: MethodFacts[] }> })
      .apis
  : {};

function readDocument(api: DiscoveryApi): DiscoveryDocument | undefined {
  for (const candidate of [join(api.name, api.version, `${api.name}-api.json`), `${api.name}.${api.version}.json`]) {
    const path = join(documentsDir!, candidate);
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as DiscoveryDocument;
  }
  if (EARLIER[`${api.name}:${api.version}`] !== undefined) return undefined;
  throw new Error(`no document for ${api.name} ${api.version} under ${documentsDir}, and none in the fixture`);
}

function findMethod(document: DiscoveryDocument, id: string): DiscoveryMethod | undefined {
  const [, ...names] = id.split('.');
  const method = names.pop()!;
  let node: DiscoveryResource | undefined = document;
  for (const name of names) node = node?.resources?.[name];
  return node?.methods?.[method];
}

const PARAMETER_FACTS = ['type', 'location', 'required', 'repeated', 'format'] as const;

function parameterFacts(parameter: Facts): Facts {
  return Object.fromEntries(PARAMETER_FACTS.filter((key) => parameter[key] !== undefined).map((key) => [key, parameter[key]]));
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function factsOf(method: DiscoveryMethod, revision: string): MethodFacts {
  return {
    id: method.id,
    httpMethod: method.httpMethod,
    path: method.path,
    flatPath: method.flatPath ?? method.path,
    parameterOrder: method.parameterOrder ?? [],
    parameters: sorted(Object.fromEntries(Object.entries(method.parameters ?? {}).map(([name, parameter]) => [name, parameterFacts(parameter)]))),
    ...(method.request === undefined ? {} : { request: method.request.$ref }),
    ...(method.response === undefined ? {} : { response: method.response.$ref }),
    ...(method.mediaUpload === undefined ? {} : { mediaUpload: method.mediaUpload }),
    source: `document ${revision}`,
  };
}

/** Gcloud is what gcloud's generated apitools client says of compute's methods. */
class Gcloud {
  private readonly client: string;
  private readonly messages: string;
  readonly version: string;
  constructor(dir: string) {
    this.client = readFileSync(join(dir, 'compute_v1_client.py'), 'utf8');
    this.messages = readFileSync(join(dir, 'compute_v1_messages.py'), 'utf8');
    const sdk = join(dir, '../../../../../..', 'VERSION');
    this.version = existsSync(sdk) ? readFileSync(sdk, 'utf8').trim() : 'unknown';
  }

  method(id: string): GcloudMethod | undefined {
    const start = this.client.indexOf(`method_id='${id}'`);
    if (start === -1) return undefined;
    const block = this.client.slice(start, this.client.indexOf('\n    )', start));
    const list = (key: string): string[] => [...(new RegExp(`${key}=\\[([^\\]]*)\\]`).exec(block)?.[1] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]!);
    const text = (key: string): string => new RegExp(`${key}='([^']*)'`).exec(block)?.[1] ?? '';
    const before = this.client.lastIndexOf('ApiMethodInfo(', start);
    const httpMethod = /http_method='([A-Z]+)'/.exec(this.client.slice(before, start))?.[1] ?? text('http_method');
    return {
      httpMethod,
      order: list('ordered_params'),
      path: list('path_params'),
      query: list('query_params'),
      relativePath: text('relative_path'),
      requestType: text('request_type_name'),
      requestField: text('request_field'),
      response: text('response_type_name'),
    };
  }

  /** fields reads a request message's fields: name → [type facts, required]. */
  fields(message: string): Map<string, { facts: Facts; required: boolean; messageType?: string }> {
    const start = this.messages.indexOf(`\nclass ${message}(_messages.Message):`);
    const end = this.messages.indexOf('\nclass ', start + 1);
    const body = this.messages.slice(start, end === -1 ? undefined : end);
    const out = new Map<string, { facts: Facts; required: boolean; messageType?: string }>();
    for (const match of body.matchAll(/^ {2}(\w+) = _messages\.(\w+)\((.*)\)$/gm)) {
      const [, name = '', kind = '', args = ''] = match;
      const variant = /Variant\.(\w+)/.exec(args)?.[1] ?? 'INT64';
      const facts: Facts =
        kind === 'BooleanField'
          ? { type: 'boolean' }
          : kind === 'IntegerField'
            ? {
                INT32: { type: 'integer', format: 'int32' },
                UINT32: { type: 'integer', format: 'uint32' },
                INT64: { type: 'string', format: 'int64' },
                UINT64: { type: 'string', format: 'uint64' },
              }[variant]!
            : { type: 'string' };
      const messageType = kind === 'MessageField' ? /'(\w+)'/.exec(args)?.[1] : undefined;
      out.set(name, { facts, required: args.includes('required=True'), ...(messageType === undefined ? {} : { messageType }) });
    }
    return out;
  }

  parameter(fields: ReturnType<Gcloud['fields']>, name: string, location: 'path' | 'query'): Facts {
    const field = fields.get(name);
    if (field === undefined) throw new Error(`gcloud's messages lack ${name}`);
    return { ...field.facts, location, ...(field.required ? { required: true } : {}) };
  }
}

const gcloud = gcloudDir === undefined ? undefined : new Gcloud(gcloudDir);
const fixture: { note: string; apis: Record<string, { revision: string; servicePath: string; batchPath: string; methods: MethodFacts[] }> } = {
  note: "Facts from Google's published Discovery documents for each method fogbank serves (scripts/discovery-fixture.ts).",
  apis: {},
};
for (const api of [COMPUTE_DISCOVERY, MAIL_DISCOVERY, PUBLISHER_DISCOVERY]) {
  const read = readDocument(api);
  const earlier = EARLIER[`${api.name}:${api.version}`];
  const document: DiscoveryDocument = read ?? { revision: earlier!.revision, servicePath: earlier!.servicePath, batchPath: earlier!.batchPath };
  const methods: MethodFacts[] = [];
  for (const { id } of api.methods) {
    const found = read === undefined ? undefined : findMethod(read, id);
    const kept = read === undefined ? earlier?.methods.find((method) => method.id === id) : undefined;
    if (kept !== undefined) {
      methods.push(kept);
      continue;
    }
    let facts = found === undefined ? undefined : factsOf(found, String(document.revision));
    const newer = api.name === 'compute' ? gcloud?.method(id) : undefined;
    if (newer !== undefined) {
      const fields = gcloud!.fields(newer.requestType);
      if (facts === undefined) {
        const parameters: Record<string, Facts> = {};
        for (const name of newer.path) parameters[name] = gcloud!.parameter(fields, name, 'path');
        for (const name of newer.query) parameters[name] = gcloud!.parameter(fields, name, 'query');
        const request = newer.requestField === '' ? undefined : fields.get(newer.requestField)?.messageType;
        facts = {
          id,
          httpMethod: newer.httpMethod,
          path: newer.relativePath,
          flatPath: newer.relativePath,
          parameterOrder: newer.order,
          parameters: sorted(parameters),
          ...(request === undefined ? {} : { request }),
          response: newer.response,
          source: `gcloud ${gcloud!.version}`,
        };
      } else {
        const known = facts.parameters;
        const added = newer.query.filter((name) => known[name] === undefined);
        for (const name of added) known[name] = gcloud!.parameter(fields, name, 'query');
        if (added.length > 0)
          facts = { ...facts, parameters: sorted(known), source: `${facts.source}, parameters ${added.join(', ')} from gcloud ${gcloud!.version}` };
      }
    }
    if (facts === undefined) throw new Error(`${id} is in neither ${api.name}'s document${api.name === 'compute' ? " nor gcloud's client" : ''}`);
    methods.push(facts);
  }
  fixture.apis[`${api.name}:${api.version}`] = { revision: document.revision, servicePath: document.servicePath, batchPath: document.batchPath, methods };
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(fixture, null, 1)}\n`);
console.log(`wrote ${OUT}`);
