/**
 * The cluster's admission, assembled: the configuration followed from the store, and the chain
 * the registry runs for every client write — the mutating phase (mutating webhooks), then,
 * after the strategy's validation, the validating phase (ValidatingAdmissionPolicies, then
 * validating webhooks), in the apiserver's plugin order. The context the plugins read through
 * (namespaces, params, the served views, RBAC) is this module's: the store and the registry.
 */
import type { Store } from '../../../store/index.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { GenericRegistry } from '../apimachinery/registry.ts';
import type { ViewIndex } from '../apimachinery/handler-context.ts';
import { apiVersionOf, type AnyView } from '../apimachinery/strategy.ts';
import type { Authorizer } from '../rbac/authorizer.ts';
import { NAMESPACE_STORE_KIND } from '../resources/namespaces.ts';
import type { AdmissionAttributes, AdmissionChain, AdmissionOutcome } from './attributes.ts';
import { paramAuthorizationCheck } from './configuration/param-authorization.ts';
import { TypeChecking } from './policy/type-checking.ts';
import { type PolicyContext, selectParams, ValidatingPolicies } from './policy/validating-policies.ts';
import { StoredConfigurations } from './stored-configurations.ts';
import { Webhooks } from './webhook/webhooks.ts';

/** ClusterAdmission is the chain and its lifecycle. */
export interface ClusterAdmission {
  readonly chain: AdmissionChain;
  readonly configurations: StoredConfigurations;
  readonly policies: ValidatingPolicies;
  /** typeChecking writes the policies' status.typeChecking (the status controller). */
  readonly typeChecking: TypeChecking;
  /** beforeWrite is the registry hook making the write-time `get` checks on a policy's paramKind and a binding's paramRef. */
  readonly beforeWrite: ReturnType<typeof paramAuthorizationCheck>;
  start(): Promise<void>;
  stop(): void;
}

/** createClusterAdmission builds the chain over the store, the registry's presentation, the served views and RBAC. */
export function createClusterAdmission(store: Store, registry: () => GenericRegistry, index: () => ViewIndex, authorizer: Authorizer): ClusterAdmission {
  const configurations = new StoredConfigurations(store);
  const scopeOf = (view: AnyView, namespace: string | undefined) => ({ view, group: view.group, namespace });
  const context: PolicyContext = {
    async namespaceLabels(namespace) {
      const record = await store.get<KubeObject>(NAMESPACE_STORE_KIND, namespace);
      return record?.value.metadata.labels ?? (record === undefined ? undefined : {});
    },
    async namespaceObject(namespace) {
      return (await store.get<KubeObject>(NAMESPACE_STORE_KIND, namespace))?.value;
    },
    servedVersions(group, resource) {
      return index()
        .views.filter((view) => view.group === group && view.resource === resource && view.subresource === undefined)
        .map((view) => view.version);
    },
    paramView(apiVersion, kind) {
      return index().views.find((view) => view.subresource === undefined && view.kind === kind && apiVersionOf(view) === apiVersion);
    },
    async params(view, namespace, ref) {
      const scope = scopeOf(view, namespace);
      if (ref.name !== undefined && ref.name !== '') {
        const record = await store.get<KubeObject>(view.storeKind, registry().keyOf(scope, namespace, ref.name));
        return record === undefined ? [] : [registry().present(scope, record)];
      }
      const records = await store.list<KubeObject>(view.storeKind, namespace === undefined ? {} : { prefix: `${namespace}/` });
      return selectParams(
        records.map((record) => registry().present(scope, record)),
        ref.selector ?? {},
      );
    },
    async authorizer() {
      if (!authorizer.isCurrent()) await authorizer.refresh();
      return (user, request) => {
        const decision = authorizer.decide(user, {
          verb: request.verb,
          resourceRequest: request.path === undefined,
          apiGroup: request.group ?? '',
          apiGroupSpelled: request.group ?? '',
          resource: request.resource ?? '',
          subresource: request.subresource ?? '',
          name: request.name ?? '',
          namespace: request.namespace ?? '',
          path: request.path ?? '',
        });
        return { allowed: decision.allowed, reason: decision.reason };
      };
    },
  };
  const policies = new ValidatingPolicies(configurations, context);
  const webhooks = new Webhooks(configurations, store, context);
  const typeChecking = new TypeChecking(registry, () => index().views);
  configurations.onPolicy((policy) => typeChecking.policyChanged(policy));
  const chain: AdmissionChain = {
    active: () => !configurations.empty(),
    mutates: () => configurations.mutatingWebhooks.size > 0,
    async admit(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined) {
      return webhooks.active() ? webhooks.admit(attributes, outcome) : undefined;
    },
    async validate(attributes, outcome) {
      if (policies.active()) await policies.validate(attributes, outcome);
      if (webhooks.active()) await webhooks.validate(attributes, outcome);
    },
  };
  // The RESTMapper: the served kind's resource (any served version when none is named).
  const resolve = (group: string, version: string, kind: string) =>
    index().views.find(
      (view) =>
        view.subresource === undefined &&
        view.kind === kind &&
        view.group === authorizer.groups.canonical(group) &&
        (version === '' || view.version === version),
    )?.resource;
  return {
    chain,
    configurations,
    policies,
    typeChecking,
    beforeWrite: paramAuthorizationCheck(authorizer, resolve),
    start: () => configurations.start(),
    stop: () => {
      configurations.stop();
      webhooks.agents.close();
    },
  };
}
