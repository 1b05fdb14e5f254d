/** The cluster API's terms in the spec's neutral spelling and the real one (the mechanism is core/identifiers.ts). */
import { Vocabulary } from '../../core/identifiers.ts';

/** DEFAULT_API_DOMAIN is the cluster API's group-name suffix (the spec's `{api_domain}`) that real clients hard-code. */
export const DEFAULT_API_DOMAIN = 'k8s.io';

/**
 * apiGroupVocabulary maps cluster API group names under a configured domain to the real
 * `k8s.io` ones (`rbac.authorization.example.io` ↔ `rbac.authorization.k8s.io`). With the
 * default domain both spellings are the same.
 */
export function apiGroupVocabulary(groupPrefixes: readonly string[], domain: string = DEFAULT_API_DOMAIN): Vocabulary {
  return new Vocabulary(groupPrefixes.map((prefix) => ({ real: `${prefix}.${DEFAULT_API_DOMAIN}`, spec: `${prefix}.${domain}` })));
}
