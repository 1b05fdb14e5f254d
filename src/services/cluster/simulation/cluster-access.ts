/**
 * How the simulated controllers, scheduler and kubelet read and write the cluster: reads straight
 * from the store (what an informer cache holds), writes through the generic registry as a client
 * of the apiserver would (validation, defaults, managedFields, resourceVersions, watch events),
 * each under the field manager of the component that makes it. Events are core v1 Events, as
 * client-go's recorder writes them.
 */
import type { IdSource } from '../../../lib/ids.ts';
import type { Store } from '../../../store/index.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime, type GenericRegistry, type RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';

/** Resource names a kind as the simulation touches it: its group and plural. */
export interface Resource {
  readonly group: string;
  readonly resource: string;
}

export const PODS: Resource = { group: '', resource: 'pods' };
export const NODES: Resource = { group: '', resource: 'nodes' };
export const EVENTS: Resource = { group: '', resource: 'events' };
export const REPLICATION_CONTROLLERS: Resource = { group: '', resource: 'replicationcontrollers' };
export const PERSISTENT_VOLUME_CLAIMS: Resource = { group: '', resource: 'persistentvolumeclaims' };
export const DEPLOYMENTS: Resource = { group: 'apps', resource: 'deployments' };
export const REPLICA_SETS: Resource = { group: 'apps', resource: 'replicasets' };
export const STATEFUL_SETS: Resource = { group: 'apps', resource: 'statefulsets' };
export const DAEMON_SETS: Resource = { group: 'apps', resource: 'daemonsets' };
export const CONTROLLER_REVISIONS: Resource = { group: 'apps', resource: 'controllerrevisions' };
export const JOBS: Resource = { group: 'batch', resource: 'jobs' };
export const CRON_JOBS: Resource = { group: 'batch', resource: 'cronjobs' };

/** TypeMeta names a kind as references carry it (stored objects do not hold their own). */
export interface TypeMeta {
  readonly kind: string;
  readonly apiVersion: string;
}

export const POD_TYPE: TypeMeta = { kind: 'Pod', apiVersion: 'v1' };
export const NODE_TYPE: TypeMeta = { kind: 'Node', apiVersion: 'v1' };
export const REPLICATION_CONTROLLER_TYPE: TypeMeta = { kind: 'ReplicationController', apiVersion: 'v1' };
export const DEPLOYMENT_TYPE: TypeMeta = { kind: 'Deployment', apiVersion: 'apps/v1' };
export const REPLICA_SET_TYPE: TypeMeta = { kind: 'ReplicaSet', apiVersion: 'apps/v1' };
export const STATEFUL_SET_TYPE: TypeMeta = { kind: 'StatefulSet', apiVersion: 'apps/v1' };
export const DAEMON_SET_TYPE: TypeMeta = { kind: 'DaemonSet', apiVersion: 'apps/v1' };
export const JOB_TYPE: TypeMeta = { kind: 'Job', apiVersion: 'batch/v1' };
export const CRON_JOB_TYPE: TypeMeta = { kind: 'CronJob', apiVersion: 'batch/v1' };

/** controllerRef is the owner reference a controller puts on what it makes (metav1.NewControllerRef). */
export function controllerRef(owner: KubeObject, of: TypeMeta): Record<string, unknown> {
  return { apiVersion: of.apiVersion, kind: of.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** controllerOf is the uid of an object's controlling owner, if any. */
export function controllerOf(object: KubeObject): string | undefined {
  const refs = (object.metadata.ownerReferences ?? []) as unknown as Record<string, unknown>[];
  const ref = refs.find((candidate) => candidate['controller'] === true);
  return ref === undefined ? undefined : String(ref['uid'] ?? '');
}

/** EventSource is who records an Event: the component (`deployment-controller`) and the host, if any. */
export interface EventSource {
  readonly component: string;
  readonly host?: string;
}

/** Mutation changes a copy of the current object (the registry skips a write that changes nothing). */
export type Mutation = (object: BuiltinObject) => void;

/** isMissing is true for the apiserver's NotFound (the object went meanwhile). */
export function isMissing(error: unknown): boolean {
  return error instanceof StatusError && error.reason === 'NotFound';
}

/** ClusterAccess is the simulation's client of the cluster. */
export class ClusterAccess {
  readonly #views = new Map<string, AnyView>();
  #lastNanos = 0n;

  constructor(
    readonly store: Store,
    readonly registry: GenericRegistry,
    views: readonly AnyView[],
    readonly ids: IdSource,
    readonly now: () => number,
  ) {
    for (const view of views) {
      const key = `${view.group}/${view.resource}/${view.subresource ?? ''}`;
      if (!this.#views.has(key)) this.#views.set(key, view);
    }
  }

  /** view is the served view of a resource (or its subresource). */
  view(resource: Resource, subresource?: string): AnyView {
    const view = this.#views.get(`${resource.group}/${resource.resource}/${subresource ?? ''}`);
    if (view === undefined) throw new Error(`no view serves ${resource.resource}${subresource === undefined ? '' : `/${subresource}`}`);
    return view;
  }

  storeKind(resource: Resource): string {
    return this.view(resource).storeKind;
  }

  #scope(resource: Resource, namespace: string | undefined, subresource?: string): RequestScope {
    const view = this.view(resource, subresource);
    return { view, group: resource.group, namespace: view.strategy.namespaced ? namespace : undefined };
  }

  /** list reads every stored object of a resource, in one namespace when given. */
  async list(resource: Resource, namespace?: string): Promise<BuiltinObject[]> {
    const records = await this.store.list<BuiltinObject>(this.storeKind(resource), namespace === undefined ? {} : { prefix: `${namespace}/` });
    return records.map((record) => record.value);
  }

  /** get reads one stored object, or undefined. */
  async get(resource: Resource, namespace: string | undefined, name: string): Promise<BuiltinObject | undefined> {
    const key = namespace === undefined || !this.view(resource).strategy.namespaced ? name : `${namespace}/${name}`;
    return (await this.store.get<BuiltinObject>(this.storeKind(resource), key))?.value;
  }

  /** getByKey reads the object a work-queue key names (`namespace/name`, as the controllers' informers key objects), with its namespace. */
  async getByKey(resource: Resource, key: string): Promise<{ readonly namespace: string; readonly object: BuiltinObject } | undefined> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const object = await this.get(resource, namespace, key.slice(slash + 1));
    return object === undefined ? undefined : { namespace, object };
  }

  /** liveByKey is getByKey for a controller's own object: undefined also while it is being deleted (the garbage collector's turn). */
  async liveByKey(resource: Resource, key: string): Promise<{ readonly namespace: string; readonly object: BuiltinObject } | undefined> {
    const found = await this.getByKey(resource, key);
    return found === undefined || found.object.metadata.deletionTimestamp !== undefined ? undefined : found;
  }

  /** create writes a new object as `manager`; generateName names it. */
  async create(resource: Resource, namespace: string | undefined, body: KubeObject, manager: string): Promise<BuiltinObject> {
    const { object } = await this.registry.create(this.#scope(resource, namespace), body, { dryRun: false, fieldManager: manager });
    return object as BuiltinObject;
  }

  /** update changes an object's main resource as `manager`; undefined when it is gone. */
  async update(resource: Resource, namespace: string | undefined, name: string, change: Mutation, manager: string): Promise<BuiltinObject | undefined> {
    return this.#update(this.#scope(resource, namespace), name, change, manager);
  }

  /** updateStatus changes an object's `/status` as `manager`; undefined when it is gone. */
  async updateStatus(resource: Resource, namespace: string | undefined, name: string, change: Mutation, manager: string): Promise<BuiltinObject | undefined> {
    return this.#update(this.#scope(resource, namespace, 'status'), name, change, manager);
  }

  async #update(scope: RequestScope, name: string, change: Mutation, manager: string): Promise<BuiltinObject | undefined> {
    try {
      const { object } = await this.registry.update(
        scope,
        name,
        (current) => {
          const copy = structuredClone(current) as BuiltinObject;
          change(copy);
          return copy;
        },
        { dryRun: false, fieldManager: manager, allowCreate: false },
      );
      return object as BuiltinObject;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** delete removes an object (the one with `uid` only, when given; a Pod after its grace unless `gracePeriodSeconds` says otherwise); false when it was gone already. */
  async delete(resource: Resource, namespace: string | undefined, name: string, uid?: string, gracePeriodSeconds?: number): Promise<boolean> {
    try {
      await this.registry.delete(this.#scope(resource, namespace), name, {
        dryRun: false,
        preconditions: uid === undefined ? undefined : { uid },
        ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
      });
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      if (error instanceof StatusError && error.reason === 'Conflict' && uid !== undefined) return false;
      throw error;
    }
  }

  /** event records a core v1 Event about `object`, as client-go's event recorder does. */
  async event(object: KubeObject, of: TypeMeta, type: 'Normal' | 'Warning', reason: string, message: string, source: EventSource): Promise<void> {
    const namespace = object.metadata.namespace === undefined || object.metadata.namespace === '' ? 'default' : object.metadata.namespace;
    const now = this.now();
    const time = formatTime(now);
    // Named `<object>.<UnixNano in hex>` as the recorder names them, strictly increasing even on a frozen clock.
    this.#lastNanos = BigInt(now) * 1_000_000n > this.#lastNanos ? BigInt(now) * 1_000_000n : this.#lastNanos + 1n;
    const hex = this.#lastNanos.toString(16);
    const body: KubeObject & Record<string, unknown> = {
      metadata: { name: `${object.metadata.name ?? ''}.${hex}`, namespace },
      involvedObject: {
        kind: of.kind,
        namespace: object.metadata.namespace,
        name: object.metadata.name,
        uid: object.metadata.uid,
        apiVersion: of.apiVersion,
        resourceVersion: object.metadata.resourceVersion,
      },
      reason,
      message,
      source: { component: source.component, ...(source.host === undefined ? {} : { host: source.host }) },
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type,
      reportingComponent: source.component,
      reportingInstance: source.host ?? '',
    };
    try {
      await this.registry.create(this.#scope(EVENTS, namespace), body, { dryRun: false, fieldManager: source.component });
    } catch (error) {
      // An event is best effort, as the recorder's: a namespace being deleted refuses it.
      if (!(error instanceof StatusError)) throw error;
    }
  }
}
