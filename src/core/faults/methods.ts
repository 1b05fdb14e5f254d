import type { FastifyRequest } from 'fastify';
import type { DiscoveryApi } from '../discovery.ts';

/**
 * FaultMethods is what a family tells fault injection about its requests (ServiceDefinition.
 * faultMethods): the API method id of a request, whether an id names one of its methods, who a
 * request comes from, and which family-specific effects it can apply. Google families get theirs
 * from their Discovery descriptions (discoveryFaultMethods); the cluster names a request by its
 * Kubernetes verb and resource (`get clusterroles`).
 */
export interface FaultMethods {
  /**
   * methodOf names the method of a request by its HTTP method and routed URL (with its query);
   * undefined when none matches. Given the request in flight, a family may read the name from
   * what it already read of the request (its RequestInfo: the cluster's).
   */
  methodOf(method: string, url: string, request?: FastifyRequest): string | undefined;
  /** problem says why `id` names none of the family's methods, or undefined when it names one. */
  problem(id: string): string | undefined;
  /** principalOf is the caller a rule's `principal` is compared with; undefined for an anonymous one. */
  principalOf?(request: FastifyRequest): string | undefined;
}

interface CompiledMethod {
  readonly id: string;
  /** The HTTP methods that reach it: its own, and PUT on a resumable session's address (the chunks and status queries). */
  readonly httpMethods: readonly string[];
  readonly pattern: RegExp;
  /** Literal characters of the path: a more literal path wins over a placeholder (`instanceTemplates/getIamPolicy` over `{name}`). */
  readonly weight: number;
}

/**
 * discoveryFaultMethods names requests by the Discovery methods of `apis`: each method's path
 * (below the servicePath; `{name}` is one segment, `{+name}` any rest) and, for a media method,
 * its `/upload/` and `/resumable/upload/` forms (where PUT carries a resumable session's chunks). Patterns are compiled once, when the first rule
 * naming the family is added, so a server with no rules never builds them.
 */
export function discoveryFaultMethods(apis: readonly DiscoveryApi[]): FaultMethods {
  const compiled: CompiledMethod[] = [];
  const ids = new Set<string>();
  for (const api of apis) {
    for (const method of api.methods) {
      ids.add(method.id);
      const full = `/${api.servicePath}${method.path}`;
      const forms = method.mediaUpload === undefined ? [full] : [full, `/upload${full}`, `/resumable/upload${full}`];
      for (const form of forms) {
        const source = form.replace(/\{\+[^}]+\}|\{[^}]+\}|[.*+?^$()|[\]\\]/g, (part) =>
          part.startsWith('{+') ? '.+' : part.startsWith('{') ? '[^/]+' : `\\${part}`,
        );
        const httpMethods = form === full ? [method.httpMethod] : [method.httpMethod, 'PUT'];
        compiled.push({ id: method.id, httpMethods, pattern: new RegExp(`^${source}/?$`), weight: form.replace(/\{[^}]+\}/g, '').length });
      }
    }
  }
  compiled.sort((a, b) => b.weight - a.weight);
  const names = [...ids].sort();
  return {
    methodOf(method, url) {
      const verb = method === 'HEAD' ? 'GET' : method;
      const mark = url.indexOf('?');
      const path = mark === -1 ? url : url.slice(0, mark);
      return compiled.find((entry) => entry.httpMethods.includes(verb) && entry.pattern.test(path))?.id;
    },
    problem(id) {
      return ids.has(id) ? undefined : `unknown method id "${id}" (the methods are ${names.join(', ')})`;
    },
  };
}
