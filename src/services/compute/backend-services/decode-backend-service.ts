// A backend service body read against the schema and checked: what BackendServiceService loads with
// the first write (the schema stays out of start-up).
import { decodeResource } from '../shared/decode-resource.ts';
import { invalidFieldValue } from '../shared/errors.ts';
import { sameFingerprint } from '../shared/fingerprint.ts';
import { resourcePathOf } from '../shared/links.ts';
import { checkResourceName } from '../shared/names.ts';
import { type PolicyRefPath, type PolicySlot, policyReference } from './attach-rules.ts';
import type { StoredBackendService } from './backend-service.ts';
import { BackendServiceSchema, type BackendServiceInput, type LoadBalancingScheme, SecurityPolicyReferenceSchema } from './schema.ts';

/** OUTPUT_ONLY are the members a client may echo back that the server sets. */
const OUTPUT_ONLY = ['kind', 'id', 'creationTimestamp', 'selfLink', 'region', 'fingerprint'] as const;

/** DEFAULTS are what the service fills in a backend service created without them. */
const DEFAULTS: Readonly<Record<string, unknown>> = {
  description: '',
  protocol: 'HTTP',
  port: 80,
  portName: 'http',
  timeoutSec: 30,
  sessionAffinity: 'NONE',
  affinityCookieTtlSec: 0,
  connectionDraining: { drainingTimeoutSec: 300 },
  enableCDN: false,
};

/** DecodedBackendService is a body ready to store: policy references read, everything else as settings. */
export interface DecodedBackendService {
  readonly name: string;
  /** Undefined when the body names none. */
  readonly loadBalancingScheme: LoadBalancingScheme | undefined;
  readonly fingerprint: string | undefined;
  /** Each slot the body names: a policy, or null for one cleared. */
  readonly policies: Partial<Record<PolicySlot, PolicyRefPath | null>>;
  readonly settings: Record<string, unknown>;
}

/** decodeBackendService reads an insert, update or patch body (400 on anything the service refuses). */
export function decodeBackendService(body: unknown, project: string): DecodedBackendService {
  const input = decodeResource<BackendServiceInput>(BackendServiceSchema, body);
  const { name, loadBalancingScheme, securityPolicy, edgeSecurityPolicy, fingerprint, ...rest } = input;
  const settings: Record<string, unknown> = { ...rest };
  for (const field of OUTPUT_ONLY) delete settings[field];
  // An empty map is what the service never shows.
  if (typeof settings['metadatas'] === 'object' && Object.keys(settings['metadatas'] as object).length === 0) delete settings['metadatas'];
  if (Array.isArray(settings['healthChecks'])) {
    settings['healthChecks'] = (settings['healthChecks'] as string[]).map((text, index) => referencePath(text, project, `resource.healthChecks[${index}]`));
  }
  if (Array.isArray(settings['backends'])) {
    settings['backends'] = (settings['backends'] as Record<string, unknown>[]).map((backend, index) =>
      typeof backend['group'] === 'string' ? { ...backend, group: referencePath(backend['group'], project, `resource.backends[${index}].group`) } : backend,
    );
  }
  if (typeof settings['network'] === 'string') settings['network'] = referencePath(settings['network'], project, 'resource.network');
  const policies: Partial<Record<PolicySlot, PolicyRefPath | null>> = {};
  if (securityPolicy !== undefined) policies.securityPolicy = policyReference(securityPolicy, project, 'resource.securityPolicy') ?? null;
  if (edgeSecurityPolicy !== undefined) policies.edgeSecurityPolicy = policyReference(edgeSecurityPolicy, project, 'resource.edgeSecurityPolicy') ?? null;
  return { name: name ?? '', loadBalancingScheme, fingerprint, policies, settings };
}

/** decodePolicyReference reads a setSecurityPolicy / setEdgeSecurityPolicy body: the policy, or null to detach. */
export function decodePolicyReference(body: unknown, project: string): PolicyRefPath | null {
  const { securityPolicy } = decodeResource<{ securityPolicy?: string }>(SecurityPolicyReferenceSchema, body);
  return policyReference(securityPolicy ?? '', project, 'securityPolicy') ?? null;
}

/** newBackendService is the stored form of an insert (the name checked, defaults filled). */
export function newBackendService(
  decoded: DecodedBackendService,
  base: Pick<StoredBackendService, 'id' | 'project' | 'scope' | 'creationTime' | 'fingerprint'>,
): StoredBackendService {
  const name = checkResourceName(decoded.name);
  return {
    ...base,
    name,
    loadBalancingScheme: decoded.loadBalancingScheme ?? 'EXTERNAL',
    ...policyPaths(decoded.policies, {}),
    settings: { ...DEFAULTS, ...decoded.settings },
  };
}

/**
 * changedBackendService is `current` after an update (the body replaces every field) or a patch
 * (the fields given replace theirs); a given fingerprint must be the current one, the name cannot
 * change.
 */
export function changedBackendService(
  current: StoredBackendService,
  decoded: DecodedBackendService,
  replace: boolean,
  fingerprint: string,
): StoredBackendService {
  if (decoded.fingerprint !== undefined && !sameFingerprint(decoded.fingerprint, current.fingerprint)) {
    throw invalidFieldValue('resource.fingerprint', decoded.fingerprint, 'Invalid fingerprint.');
  }
  if (decoded.name !== '' && decoded.name !== current.name) throw invalidFieldValue('resource.name', decoded.name, 'Name cannot be changed.');
  // An update replaces the attachments too (a body without securityPolicy detaches it); a patch keeps those it does not name.
  const { securityPolicy: _policy, edgeSecurityPolicy: _edge, ...unattached } = current;
  return {
    ...unattached,
    loadBalancingScheme: decoded.loadBalancingScheme ?? current.loadBalancingScheme,
    ...policyPaths(decoded.policies, replace ? {} : current),
    settings: replace ? { ...DEFAULTS, ...decoded.settings } : { ...current.settings, ...decoded.settings },
    fingerprint,
  };
}

/** policyPaths is the stored slots: those `given` set (null clears), else those of `kept`. */
function policyPaths(given: Partial<Record<PolicySlot, PolicyRefPath | null>>, kept: Partial<Record<PolicySlot, string>>): Partial<Record<PolicySlot, string>> {
  const out: Partial<Record<PolicySlot, string>> = {};
  for (const slot of ['securityPolicy', 'edgeSecurityPolicy'] as const) {
    const value = slot in given ? given[slot] : undefined;
    if (value === null) continue;
    const path = value?.path ?? kept[slot];
    if (path !== undefined) out[slot] = path;
  }
  return out;
}

function referencePath(text: string, project: string, field: string): string {
  const path = resourcePathOf(text, project);
  if (path === undefined) throw invalidFieldValue(field, text, 'The URL is malformed.');
  return path;
}
