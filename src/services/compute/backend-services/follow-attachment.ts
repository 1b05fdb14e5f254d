/**
 * What `fogbank guard --backend-service` follows: one backend service and the security policy
 * attached to it now. Fed by the store's change feed over both kinds, so attaching, detaching or
 * replacing the policy (setSecurityPolicy, patch, update) and changing the attached policy's rules
 * each reach the listener as they commit.
 */
import type { BackendAttachment } from '../../../core/policy-evaluation.ts';
import type { Store } from '../../../store/store.ts';
import { badInput } from '../security-policies/what-if-body.ts';
import { policyKey, renderPolicy, SECURITY_POLICIES_KIND, storedPolicy, type StoredPolicy } from '../security-policies/policy.ts';
import type { Links } from '../shared/links.ts';
import type { Scope } from '../shared/locations.ts';
import { policyReference } from './attach-rules.ts';
import { BACKEND_SERVICES_KIND, backendServiceKey, renderBackendService, type StoredBackendService } from './backend-service.ts';

const BACKEND_SERVICE_NAME = /^projects\/([a-z0-9-]+)\/(?:global|regions\/([a-z0-9-]+))\/backendServices\/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/;

/** BackendServiceName is a parsed backend service name. */
interface BackendServiceName {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** parseBackendServiceName reads `projects/P/global/backendServices/N` or `projects/P/regions/R/backendServices/N`, or throws the evaluation's 400. */
export function parseBackendServiceName(text: string): BackendServiceName {
  const match = BACKEND_SERVICE_NAME.exec(text);
  if (match === null)
    throw badInput(
      `"backendService": ${JSON.stringify(text)} is not a backend service name such as projects/P/global/backendServices/NAME or projects/P/regions/R/backendServices/NAME.`,
    );
  const [, project, region, name] = match as unknown as [string, string, string | undefined, string];
  return { project, scope: region === undefined ? { kind: 'global' } : { kind: 'region', name: region }, name };
}

/** readAttachment is the backend service and its attached policy now (undefined when the backend service does not exist). */
export async function readAttachment(store: Store, name: BackendServiceName, links: Links): Promise<BackendAttachment | undefined> {
  const record = await store.get<StoredBackendService>(BACKEND_SERVICES_KIND, backendServiceKey(name.project, name.scope, name.name));
  if (record === undefined) return undefined;
  const service = record.value;
  const attached = service.securityPolicy === undefined ? undefined : policyReference(service.securityPolicy, service.project, 'securityPolicy');
  const policy =
    attached === undefined ? undefined : await store.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(attached.project, attached.scope, attached.name));
  return {
    backendService: renderBackendService(service, links),
    ...(policy === undefined ? {} : { policy: renderPolicy(storedPolicy(policy.value), links) }),
  };
}

/**
 * followAttachment calls `listener` with the attachment now, then after every committed change to
 * the backend service or to the policy attached to it (undefined while the backend service does
 * not exist); a change that leaves both as they were is not repeated. Resolves with the stop.
 */
export async function followAttachment(
  store: Store,
  text: string,
  links: Links,
  listener: (attachment: BackendAttachment | undefined) => void,
): Promise<() => void> {
  const name = parseBackendServiceName(text);
  const serviceKey = backendServiceKey(name.project, name.scope, name.name);
  let subscription: { close(): void } | undefined;
  let stopped = false;
  let policyKeyNow: string | undefined;
  let last: string | undefined;
  // Readings are chained, so a burst of changes is answered in order with the state after each.
  let reading: Promise<void> = Promise.resolve();
  const emit = (): void => {
    reading = reading.then(async () => {
      if (stopped) return;
      const attachment = await readAttachment(store, name, links);
      const policy = attachment?.policy;
      policyKeyNow = policy === undefined ? undefined : policyStoreKey(String(policy['selfLink']), name.project);
      const shown = attachment === undefined ? 'none' : `${String(attachment.backendService['fingerprint'])} ${String(policy?.['fingerprint'] ?? '-')}`;
      if (shown === last || stopped) return;
      last = shown;
      listener(attachment);
    });
  };
  const start = async (): Promise<void> => {
    const revision = await store.currentRevision();
    last = undefined;
    emit();
    await reading;
    if (stopped) return;
    subscription = await store.subscribe(
      revision,
      (change) => {
        if (stopped) return;
        if (change.key === serviceKey || (policyKeyNow !== undefined && change.key === policyKeyNow)) emit();
      },
      {
        kinds: [BACKEND_SERVICES_KIND, SECURITY_POLICIES_KIND],
        onReset: () => {
          if (!stopped) void start().catch(() => undefined);
        },
      },
    );
    if (stopped) subscription.close();
  };
  await start();
  return () => {
    stopped = true;
    subscription?.close();
  };
}

/** policyStoreKey is the store key of the policy a selfLink names. */
function policyStoreKey(selfLink: string, project: string): string | undefined {
  const ref = policyReference(selfLink, project, 'securityPolicy');
  return ref === undefined ? undefined : policyKey(ref.project, ref.scope, ref.name);
}
