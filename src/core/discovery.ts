import type { Term } from './identifiers.ts';
/**
 * What a family tells the discovery service about the Google API it serves (ServiceDefinition.
 * discovery): the methods its routes answer, with their real ids, paths and parameters, and the
 * schemas they name. The discovery family (services/discovery/) renders these as Discovery
 * documents pointing at fogbank; a test holds each method to a registered route, so the document
 * cannot describe a route that is not there, nor miss one that is.
 */

/** DiscoveryParameter is one method parameter as a Discovery document states it. */
export interface DiscoveryParameter {
  readonly type: 'string' | 'integer' | 'boolean' | 'number';
  readonly location: 'path' | 'query';
  readonly required?: boolean;
  readonly repeated?: boolean;
  /** The wire format of a number (`int32`, `uint32`, `int64`, `uint64`). */
  readonly format?: string;
  readonly default?: string;
  readonly enum?: readonly string[];
  readonly description?: string;
}

/** DiscoveryMediaUpload is a method's upload limits; the protocol paths are derived from its path. */
export interface DiscoveryMediaUpload {
  readonly accept: readonly string[];
  /** The largest accepted media, in bytes. */
  readonly maxSize: number;
}

/** DiscoveryMethod is one API method a family serves. */
export interface DiscoveryMethod {
  /** The real method id, `api.resource[.resource].method`: its resource nesting in the document follows it. */
  readonly id: string;
  readonly httpMethod: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path below the API's servicePath, with `{param}` placeholders (as `path` and `flatPath` in the document). */
  readonly path: string;
  readonly parameters: Readonly<Record<string, DiscoveryParameter>>;
  readonly parameterOrder: readonly string[];
  /** The request body's schema id, when it takes one. */
  readonly request?: string;
  /** The response body's schema id, when it answers one. */
  readonly response?: string;
  readonly scopes: readonly string[];
  readonly mediaUpload?: DiscoveryMediaUpload;
  readonly description?: string;
}

/** DiscoverySchema is a JSON schema in Discovery's dialect (`id`, `type`, `properties`, `items`, `$ref`, …). */
export type DiscoverySchema = Readonly<Record<string, unknown>>;

/** DiscoveryApi is one API (name and version) a family serves. */
export interface DiscoveryApi {
  /** The API's name in the real spelling (`gmail`, `androidpublisher`, `compute`). */
  readonly name: string;
  readonly version: string;
  /** The name in the spec's neutral spelling (`mail`, `publisher`), when it has one. */
  readonly specName?: string;
  readonly title: string;
  readonly description: string;
  readonly documentationLink: string;
  /**
   * servicePath as the real document has it: `compute/v1/` (method paths below it), or `` (the
   * Gmail and Play documents put `gmail/v1/…` into every method path).
   */
  readonly servicePath: string;
  readonly batchPath: string;
  /** Every OAuth scope the API knows, with what it grants. */
  readonly scopes: Readonly<Record<string, string>>;
  /** The scopes whose spec spelling differs from the real one (`…/auth/mail.send`), for documents asked for by the spec's name. */
  readonly scopeTerms?: readonly Term[];
  readonly methods: readonly DiscoveryMethod[];
  readonly schemas: Readonly<Record<string, DiscoverySchema>>;
}
