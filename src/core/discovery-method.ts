/**
 * A Discovery method declared by what differs between methods: its id, HTTP method, path and query
 * parameters. The path parameters, their order and their key order in `parameters` follow from the
 * path, so a family's description cannot name a `{placeholder}` its parameters lack.
 */

import type { DiscoveryMethod, DiscoveryParameter } from './discovery.ts';

/** DiscoveryParameters are a method's parameters by name, as the document lists them. */
export type DiscoveryParameters = Readonly<Record<string, DiscoveryParameter>>;

/** PATH_PARAMETER is a required string path parameter, what every `{placeholder}` is unless a method says otherwise. */
export const PATH_PARAMETER: DiscoveryParameter = { type: 'string', location: 'path', required: true };

/** QUERY_STRING is an optional string query parameter. */
export const QUERY_STRING: DiscoveryParameter = { type: 'string', location: 'query' };

/** QUERY_BOOLEAN is an optional boolean query parameter. */
export const QUERY_BOOLEAN: DiscoveryParameter = { type: 'boolean', location: 'query' };

/** MethodSpec is what a method states beyond its id, HTTP method and path. */
export interface MethodSpec {
  /** Query parameters, and path parameters that differ from PATH_PARAMETER (a default, say). */
  readonly parameters?: DiscoveryParameters;
  readonly request?: string;
  readonly response?: string;
  readonly scopes: readonly string[];
  readonly mediaUpload?: DiscoveryMethod['mediaUpload'];
  /**
   * Keep the path parameters first, then the rest as given, instead of listing all of them by
   * name as Google's documents do (a few fogbank methods have always been rendered that way).
   */
  readonly pathParametersFirst?: boolean;
}

/** pathParameterNames are the `{placeholder}` names of a path, in order: the method's parameterOrder. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

/** discoveryMethod is the method at `path`, its path parameters derived from the path. */
export function discoveryMethod(id: string, httpMethod: DiscoveryMethod['httpMethod'], path: string, spec: MethodSpec): DiscoveryMethod {
  const pathNames = pathParameterNames(path);
  const all = { ...Object.fromEntries(pathNames.map((name) => [name, PATH_PARAMETER])), ...spec.parameters };
  // As in Google's documents: the path parameters, then the required query parameters (a resize's `size`).
  const requiredQuery = Object.entries(spec.parameters ?? {}).filter(([name, parameter]) => parameter.required === true && !pathNames.includes(name));
  const parameterOrder = [...pathNames, ...requiredQuery.map(([name]) => name)];
  const entries = Object.entries(all);
  if (spec.pathParametersFirst !== true) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    id,
    httpMethod,
    path,
    parameters: Object.fromEntries(entries),
    parameterOrder,
    ...(spec.request === undefined ? {} : { request: spec.request }),
    ...(spec.response === undefined ? {} : { response: spec.response }),
    scopes: spec.scopes,
    ...(spec.mediaUpload === undefined ? {} : { mediaUpload: spec.mediaUpload }),
  };
}
