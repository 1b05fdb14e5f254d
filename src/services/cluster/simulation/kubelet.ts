/**
 * The simulated kubelet of every Node, as kwok's default (`stage/pod/fast`) stages run Pods, on
 * fogbank's clock: a Pod bound to a Node is Running and Ready `podReadyDelayMs` after it was
 * bound (`pod-ready`: init containers terminated `Completed`, containers running, the IPs from the
 * Node's pod CIDR, conditions Initialized, Ready, ContainersReady); a Job's Pod completes
 * `jobDurationMs` after it started (`pod-complete`), or fails with the exit code a test asks for
 * in the annotation `workloads.fogbank.dev/exit-code`; a Pod being deleted goes once the clock
 * passes its `deletionTimestamp` (the grace period) and no finalizer holds it (`pod-delete`).
 * Nodes are initialized as kwok's `node-initialize` stage does (fake-nodes.ts).
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, NODES, PODS } from './cluster-access.ts';
import { initializeNodeStatus, isNodeReady, KUBELET_MANAGER, nodeAddress, nodeInternalIp } from './fake-nodes.ts';
import { conditionOf, phaseOf, setCondition } from './pod-conditions.ts';
import type { SimulationSettings } from './settings.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

/** EXIT_CODE_ANNOTATION makes a simulated Pod's containers exit with that code (non-zero: the Pod fails). */
export const EXIT_CODE_ANNOTATION = 'workloads.fogbank.dev/exit-code';

/** RUN_DURATION_ANNOTATION overrides, for one Pod, how long its containers run before they exit (a Go duration); Job Pods exit after `--job-duration` otherwise. */
export const RUN_DURATION_ANNOTATION = 'workloads.fogbank.dev/run-duration';

/** DEFAULT_POD_CIDR is kwok's `--cidr` default, for Nodes without a pod CIDR. */
const DEFAULT_POD_CIDR = '10.0.0.0/24';

/** IpPools hands out Pod IPs per CIDR from base+1 upwards, and takes them back (kwok's ipPool). */
class IpPools {
  readonly #used = new Map<string, Set<number>>();

  #pool(cidr: string): Set<number> {
    const used = this.#used.get(cidr) ?? new Set<number>();
    this.#used.set(cidr, used);
    return used;
  }

  static number(ip: string): number | undefined {
    const octets = ip.split('.').map(Number);
    if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return undefined;
    return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  }

  static base(cidr: string): { base: number; size: number } {
    const [address = '10.0.0.0', bits = '24'] = cidr.split('/');
    return { base: IpPools.number(address) ?? 0, size: 2 ** (32 - Number(bits)) };
  }

  static text(value: number): string {
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  }

  take(cidr: string): string {
    const used = this.#pool(cidr);
    const { base, size } = IpPools.base(cidr);
    for (let offset = 1; offset < size - 1; offset++) {
      if (!used.has(base + offset)) {
        used.add(base + offset);
        return IpPools.text(base + offset);
      }
    }
    // Exhausted: reuse the first address, as an overfull fake network would.
    return IpPools.text(base + 1);
  }

  mark(cidr: string, ip: string): void {
    const value = IpPools.number(ip);
    if (value !== undefined) this.#pool(cidr).add(value);
  }

  release(cidr: string, ip: string): void {
    const value = IpPools.number(ip);
    if (value !== undefined) this.#pool(cidr).delete(value);
  }
}

function cidrOf(node: KubeObject): string {
  const spec = recordAt(node, 'spec');
  const cidrs = (spec?.['podCIDRs'] ?? []) as string[];
  return cidrs[0] ?? (spec?.['podCIDR'] as string | undefined) ?? DEFAULT_POD_CIDR;
}

/** parseRunDuration reads a Pod's run-duration annotation (`30s`, `1500ms`, `2m`), undefined when absent or unreadable. */
function parseRunDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

function ownedByJob(pod: KubeObject): boolean {
  return ((pod.metadata.ownerReferences ?? []) as Json[]).some((ref) => ref['kind'] === 'Job');
}

/** PodTimes are when the kubelet saw a Pod bound and started it, by uid, in milliseconds (in memory: after a restart a step waits its whole time again). */
interface PodTimes {
  bound?: number;
  started?: number;
}

export class Kubelet implements Reconciler {
  readonly name = 'kubelet';
  readonly #times = new Map<string, PodTimes>();
  readonly #ips = new Map<string, { cidr: string; ip: string }>();
  readonly #pools = new IpPools();

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
    readonly settings: SimulationSettings,
  ) {}

  /** start takes note of the IPs Pods already hold (a restart keeps them unique). */
  async start(): Promise<void> {
    const nodes = new Map((await this.access.list(NODES)).map((node) => [node.metadata.name ?? '', node]));
    for (const pod of await this.access.list(PODS)) {
      const ip = recordAt(pod, 'status')?.['podIP'];
      const node = nodes.get(String(recordAt(pod, 'spec')?.['nodeName'] ?? ''));
      if (typeof ip !== 'string' || node === undefined || recordAt(pod, 'spec')?.['hostNetwork'] === true) continue;
      this.#pools.mark(cidrOf(node), ip);
      this.#ips.set(pod.metadata.uid ?? '', { cidr: cidrOf(node), ip });
    }
  }

  /** podGone returns a deleted Pod's IP to its pool. */
  podGone(uid: string): void {
    const held = this.#ips.get(uid);
    if (held !== undefined) this.#pools.release(held.cidr, held.ip);
    this.#ips.delete(uid);
    this.#times.delete(uid);
  }

  /** nodeKey is the queue key of a Node's sync, pods' keys being `namespace/name`. */
  static nodeKey(name: string): string {
    return `node:${name}`;
  }

  async sync(key: string): Promise<void> {
    if (key.startsWith('node:')) return this.#syncNode(key.slice('node:'.length));
    const pod = (await this.access.getByKey(PODS, key))?.object;
    if (pod === undefined) return;
    const nodeName = String(recordAt(pod, 'spec')?.['nodeName'] ?? '');
    if (nodeName === '') return;
    const node = await this.access.get(NODES, undefined, nodeName);
    if (node === undefined) return;
    const uid = pod.metadata.uid ?? '';
    const times = this.#times.get(uid) ?? {};
    this.#times.set(uid, times);
    const now = this.access.now();
    if (pod.metadata.deletionTimestamp !== undefined) return this.#terminate(pod, key, now);
    const phase = phaseOf(pod);
    if (phase === 'Pending') {
      // Status times are whole seconds: a delay counts from when this kubelet first saw the Pod bound (it syncs on the binding).
      times.bound ??= now;
      const due = times.bound + this.settings.podReadyDelayMs;
      if (due > now) return this.queue.after(due - now, this, key);
      return this.#run(pod, node, now);
    }
    if (phase === 'Running') {
      const runFor = parseRunDuration(pod.metadata.annotations?.[RUN_DURATION_ANNOTATION]) ?? (ownedByJob(pod) ? this.settings.jobDurationMs : undefined);
      if (runFor === undefined) return;
      times.started ??= now;
      const due = times.started + runFor;
      if (due > now) return this.queue.after(due - now, this, key);
      return this.#exit(pod, now);
    }
  }

  async #syncNode(name: string): Promise<void> {
    const node = await this.access.get(NODES, undefined, name);
    if (node === undefined || isNodeReady(node)) return;
    const index = Number(/(\d+)$/.exec(name)?.[1] ?? '0');
    await this.access.updateStatus(
      NODES,
      undefined,
      name,
      (object) => initializeNodeStatus(object, nodeAddress(node, 'InternalIP') ?? nodeInternalIp(index), this.access.now()),
      KUBELET_MANAGER,
    );
  }

  /** #run is kwok's pod-ready stage. */
  async #run(pod: BuiltinObject, node: BuiltinObject, now: number): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const hostIp = nodeAddress(node, 'InternalIP') ?? '';
    let podIp = hostIp;
    if (recordAt(pod, 'spec')?.['hostNetwork'] !== true) {
      const held = this.#ips.get(uid);
      if (held !== undefined) podIp = held.ip;
      else {
        const cidr = cidrOf(node);
        podIp = this.#pools.take(cidr);
        this.#ips.set(uid, { cidr, ip: podIp });
      }
    }
    const time = formatTime(now);
    const times = this.#times.get(uid);
    if (times !== undefined) times.started = now;
    const spec = recordAt(pod, 'spec');
    const containerStatus = (container: Json): Json => ({
      name: container['name'],
      state: { running: { startedAt: time } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: container['image'],
      imageID: '',
      started: true,
    });
    const initStatus = (container: Json): Json =>
      container['restartPolicy'] === 'Always'
        ? containerStatus(container)
        : {
            name: container['name'],
            state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: time, finishedAt: time } },
            lastState: {},
            ready: true,
            restartCount: 0,
            image: container['image'],
            imageID: '',
            started: false,
          };
    const gates = listOf(spec?.['readinessGates']);
    await this.access.updateStatus(
      PODS,
      pod.metadata.namespace,
      pod.metadata.name ?? '',
      (object) => {
        if (object.metadata.uid !== uid || phaseOf(object) !== 'Pending' || object.metadata.deletionTimestamp !== undefined) return;
        const ready = (type: string): Json => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: time });
        const scheduled = conditionOf(object, 'PodScheduled') ?? ready('PodScheduled');
        const status = (object['status'] ?? {}) as Json;
        const conditions = [
          ready('Initialized'),
          ready('Ready'),
          ready('ContainersReady'),
          scheduled,
          ...gates.map((gate) => ready(String(gate['conditionType']))),
        ];
        const inits = listOf(spec?.['initContainers']);
        object['status'] = {
          ...status,
          phase: 'Running',
          conditions,
          ...(hostIp === '' ? {} : { hostIP: hostIp, hostIPs: [{ ip: hostIp }] }),
          ...(podIp === '' ? {} : { podIP: podIp, podIPs: [{ ip: podIp }] }),
          startTime: time,
          ...(inits.length === 0 ? {} : { initContainerStatuses: inits.map(initStatus) }),
          containerStatuses: listOf(spec?.['containers']).map(containerStatus),
        };
      },
      KUBELET_MANAGER,
    );
  }

  /**
   * #exit is kwok's pod-complete stage, with the kubelet's terminal conditions: every container
   * exits with the asked code. A restartPolicy that restarts it (Always; OnFailure after a failure)
   * runs it again at once, counting the restart, with the exit as its lastState.
   */
  async #exit(pod: BuiltinObject, now: number): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const exitCode = Number(pod.metadata.annotations?.[EXIT_CODE_ANNOTATION] ?? '0') || 0;
    const time = formatTime(now);
    const policy = String(recordAt(pod, 'spec')?.['restartPolicy'] ?? 'Always');
    if (policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0)) return this.#restart(pod, exitCode, now);
    await this.access.updateStatus(
      PODS,
      pod.metadata.namespace,
      pod.metadata.name ?? '',
      (object) => {
        if (object.metadata.uid !== uid || phaseOf(object) !== 'Running' || object.metadata.deletionTimestamp !== undefined) return;
        const status = (object['status'] ?? {}) as Json;
        const finished = (entry: Json): Json => {
          const running = recordAt(entry, 'state', 'running');
          return {
            ...entry,
            state: {
              terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: running?.['startedAt'] ?? time, finishedAt: time },
            },
            ready: false,
            started: false,
          };
        };
        status['containerStatuses'] = listOf(status['containerStatuses']).map(finished);
        status['phase'] = exitCode === 0 ? 'Succeeded' : 'Failed';
        for (const type of ['Ready', 'ContainersReady'])
          setCondition(object, { type, status: 'False', lastProbeTime: null, lastTransitionTime: time, reason: 'PodCompleted' }, { inPlace: true });
      },
      KUBELET_MANAGER,
    );
  }

  /** #restart is the kubelet restarting every container of a running Pod after it exited with `exitCode`. */
  async #restart(pod: BuiltinObject, exitCode: number, now: number): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const time = formatTime(now);
    const times = this.#times.get(uid);
    if (times !== undefined) times.started = now;
    await this.access.updateStatus(
      PODS,
      pod.metadata.namespace,
      pod.metadata.name ?? '',
      (object) => {
        if (object.metadata.uid !== uid || phaseOf(object) !== 'Running' || object.metadata.deletionTimestamp !== undefined) return;
        const status = (object['status'] ?? {}) as Json;
        status['containerStatuses'] = listOf(status['containerStatuses']).map((entry) => ({
          ...entry,
          lastState: {
            terminated: {
              exitCode,
              reason: exitCode === 0 ? 'Completed' : 'Error',
              startedAt: recordAt(entry, 'state', 'running')?.['startedAt'] ?? time,
              finishedAt: time,
            },
          },
          state: { running: { startedAt: time } },
          restartCount: Number(entry['restartCount'] ?? 0) + 1,
        }));
      },
      KUBELET_MANAGER,
    );
    this.queue.add(this, `${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  /** #terminate is kwok's pod-delete stage, after the grace period the deletion set. */
  async #terminate(pod: BuiltinObject, key: string, now: number): Promise<void> {
    if ((pod.metadata.finalizers ?? []).length > 0) return;
    const due = Date.parse(String(pod.metadata.deletionTimestamp ?? ''));
    if (!Number.isNaN(due) && due > now) return this.queue.after(due - now, this, key);
    await this.access.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid, 0);
  }
}
