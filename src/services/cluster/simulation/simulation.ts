/**
 * `--workloads simulate`: what kwok with kube-scheduler and kube-controller-manager beside it
 * does, inside fogbank, on its clock. One singleton among replicas (like the other controllers)
 * follows the store's change feed and feeds one work queue: the fake Nodes and their kubelet
 * (kubelet.ts), the scheduler (scheduler.ts), and the workload controllers (replica-sets.ts,
 * deployments.ts, jobs.ts, cron-jobs.ts, stateful-sets.ts, daemon-sets.ts). Every timed step waits on fogbank's timers, so a frozen clock holds the
 * simulation and `clock advance` moves it.
 */
import type { Timers } from '../../../lib/clock.ts';
import type { Change, Store, Subscription } from '../../../store/index.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { recordAt } from '../resources/pod-spec.ts';
import {
  type ClusterAccess,
  CRON_JOBS,
  DAEMON_SETS,
  DEPLOYMENTS,
  JOBS,
  NODES,
  PODS,
  REPLICA_SETS,
  REPLICATION_CONTROLLERS,
  STATEFUL_SETS,
} from './cluster-access.ts';
import { CronJobController } from './cron-jobs.ts';
import { ALL_DAEMON_SETS_KEY, DaemonSetController } from './daemon-sets.ts';
import { DeploymentController } from './deployments.ts';
import { JobController } from './jobs.ts';
import { ensureFakeNodes } from './fake-nodes.ts';
import { Kubelet } from './kubelet.ts';
import { REPLICA_SET_KIND, REPLICATION_CONTROLLER_KIND, ReplicaController } from './replica-sets.ts';
import { SCHEDULER_KEY, Scheduler } from './scheduler.ts';
import { StatefulSetController } from './stateful-sets.ts';
import type { SimulationSettings } from './settings.ts';
import { type Reconciler, WorkQueue } from './work-queue.ts';

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

function controllerRefOf(object: KubeObject): { kind: string; name: string } | undefined {
  const refs = (object.metadata.ownerReferences ?? []) as Record<string, unknown>[];
  const ref = refs.find((candidate) => candidate['controller'] === true);
  return ref === undefined ? undefined : { kind: String(ref['kind'] ?? ''), name: String(ref['name'] ?? '') };
}

export class WorkloadSimulation {
  readonly queue: WorkQueue;
  readonly kubelet: Kubelet;
  readonly scheduler: Scheduler;
  readonly #owners: ReadonlyMap<string, Reconciler>;
  readonly #byStoreKind: ReadonlyMap<string, (change: Change) => void>;
  #subscription: Subscription | undefined;
  #stopped = false;

  constructor(
    readonly access: ClusterAccess,
    readonly store: Store,
    timers: Timers,
    readonly settings: SimulationSettings,
  ) {
    this.queue = new WorkQueue(timers);
    this.kubelet = new Kubelet(access, this.queue, settings);
    this.scheduler = new Scheduler(access, store);
    const replicaSets = new ReplicaController(REPLICA_SET_KIND, access, this.queue);
    const replicationControllers = new ReplicaController(REPLICATION_CONTROLLER_KIND, access, this.queue);
    const deployments = new DeploymentController(access, this.queue);
    const jobs = new JobController(access, this.queue);
    const cronJobs = new CronJobController(access, this.queue);
    const statefulSets = new StatefulSetController(access, this.queue);
    const daemonSets = new DaemonSetController(access, this.queue);
    this.#owners = new Map<string, Reconciler>([
      ['ReplicaSet', replicaSets],
      ['ReplicationController', replicationControllers],
      ['Deployment', deployments],
      ['Job', jobs],
      ['CronJob', cronJobs],
      ['StatefulSet', statefulSets],
      ['DaemonSet', daemonSets],
    ]);
    const owner = (object: KubeObject): void => {
      const ref = controllerRefOf(object);
      const reconciler = ref === undefined ? undefined : this.#owners.get(ref.kind);
      if (ref !== undefined && reconciler !== undefined) this.queue.add(reconciler, `${object.metadata.namespace}/${ref.name}`);
    };
    this.#byStoreKind = new Map<string, (change: Change) => void>([
      [
        access.storeKind(PODS),
        (change) => {
          const pod = change.value as KubeObject;
          if (change.type === 'deleted') this.kubelet.podGone(pod.metadata.uid ?? '');
          else if (String(recordAt(pod, 'spec')?.['nodeName'] ?? '') !== '') this.queue.add(this.kubelet, keyOf(pod));
          this.queue.add(this.scheduler, SCHEDULER_KEY);
          owner(pod);
        },
      ],
      [
        access.storeKind(NODES),
        (change) => {
          if (change.type !== 'deleted') this.queue.add(this.kubelet, Kubelet.nodeKey((change.value as KubeObject).metadata.name ?? ''));
          this.queue.add(this.scheduler, SCHEDULER_KEY);
          this.queue.add(daemonSets, ALL_DAEMON_SETS_KEY);
        },
      ],
      [
        access.storeKind(REPLICA_SETS),
        (change) => {
          this.queue.add(replicaSets, keyOf(change.value as KubeObject));
          owner(change.value as KubeObject);
        },
      ],
      [access.storeKind(REPLICATION_CONTROLLERS), (change) => this.queue.add(replicationControllers, keyOf(change.value as KubeObject))],
      [access.storeKind(DEPLOYMENTS), (change) => this.queue.add(deployments, keyOf(change.value as KubeObject))],
      [
        access.storeKind(JOBS),
        (change) => {
          this.queue.add(jobs, keyOf(change.value as KubeObject));
          owner(change.value as KubeObject);
        },
      ],
      [access.storeKind(CRON_JOBS), (change) => this.queue.add(cronJobs, keyOf(change.value as KubeObject))],
      [access.storeKind(STATEFUL_SETS), (change) => this.queue.add(statefulSets, keyOf(change.value as KubeObject))],
      [access.storeKind(DAEMON_SETS), (change) => this.queue.add(daemonSets, keyOf(change.value as KubeObject))],
    ]);
  }

  /** start registers the fake Nodes, then follows the change feed from now, having queued everything there is. */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    const onReset = (): void => {
      if (!this.#stopped) void this.#resync();
    };
    this.#subscription = await this.store.subscribe(from, (change) => this.#byStoreKind.get(change.kind)?.(change), {
      kinds: [...this.#byStoreKind.keys()],
      onReset,
    });
    await ensureFakeNodes(this.access, this.settings.nodes);
    await this.kubelet.start();
    await this.#resync();
  }

  /** #resync queues every object the simulation handles, as informers' initial lists do. */
  async #resync(): Promise<void> {
    for (const storeKind of this.#byStoreKind.keys()) {
      const handle = this.#byStoreKind.get(storeKind)!;
      for (const record of await this.store.list(storeKind)) {
        handle({ type: 'created', kind: storeKind, key: record.key, value: record.value, revision: record.revision, createRevision: record.createRevision });
      }
    }
  }

  /** idle resolves once nothing is queued (steps waiting on the clock do not count). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#subscription?.close();
    await this.queue.stop();
  }
}
