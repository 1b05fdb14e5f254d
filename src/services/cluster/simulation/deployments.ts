/**
 * The Deployment controller (upstream `pkg/controller/deployment/{sync,rolling,recreate,
 * progress}.go`, `util/deployment_util.go`): the new ReplicaSet `<deployment>-<pod-template-hash>`
 * (found by template equality ignoring the hash, so `rollout undo` reuses an old one and bumps its
 * revision), the rolling update's steps bounded by maxSurge/maxUnavailable (Recreate: old to zero
 * first), the revision annotations, old ReplicaSets beyond revisionHistoryLimit cleaned up, and
 * the status and conditions (Available, Progressing with its reasons and the progress deadline) as
 * the controller writes them, which `kubectl rollout status` and `kubectl wait` read.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { selectorMatches } from '../resources/label-selector-object.ts';
import { recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, controllerOf, controllerRef, DEPLOYMENT_TYPE, DEPLOYMENTS, PODS, REPLICA_SETS } from './cluster-access.ts';
import { conditionOf, removeCondition, setCondition } from './pod-conditions.ts';
import { podTemplateHash, sameTemplate } from './pod-template-hash.ts';
import { CONTROLLER_MANAGER, isActivePod } from './replica-sets.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

const COMPONENT = 'deployment-controller';
const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
const HASH_LABEL = 'pod-template-hash';

/** resolveIntOrPercent reads maxSurge/maxUnavailable against `total`, rounding up or down (intstr.GetScaledValueFromIntOrPercent). */
export function resolveIntOrPercent(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(String(value ?? '0'));
  if (match === null) return Number(value) || 0;
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** fenceposts are a rolling update's maxSurge and maxUnavailable (ResolveFenceposts: both zero makes maxUnavailable 1). */
export function fenceposts(deployment: KubeObject): { surge: number; unavailable: number } {
  const spec = recordAt(deployment, 'spec');
  const replicas = Number(spec?.['replicas'] ?? 1);
  if (recordAt(spec, 'strategy')?.['type'] === 'Recreate') return { surge: 0, unavailable: replicas };
  const rolling = recordAt(spec, 'strategy', 'rollingUpdate') ?? {};
  const surge = resolveIntOrPercent(rolling['maxSurge'] ?? '25%', replicas, true);
  const unavailable = resolveIntOrPercent(rolling['maxUnavailable'] ?? '25%', replicas, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

function specReplicas(object: KubeObject): number {
  return Number(recordAt(object, 'spec')?.['replicas'] ?? 0);
}

function statusCount(object: KubeObject, field: string): number {
  return Number(recordAt(object, 'status')?.[field] ?? 0);
}

function revisionOf(rs: KubeObject): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? '0') || 0;
}

function byCreation(a: KubeObject, b: KubeObject): number {
  const at = String(a.metadata.creationTimestamp ?? '');
  const bt = String(b.metadata.creationTimestamp ?? '');
  return at < bt ? -1 : at > bt ? 1 : String(a.metadata.name).localeCompare(String(b.metadata.name));
}

/** copiedAnnotations are the Deployment's annotations a ReplicaSet carries (skipCopyAnnotation's exclusions dropped). */
function copiedAnnotations(deployment: KubeObject): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) {
    if (key === 'kubectl.kubernetes.io/last-applied-configuration' || key.startsWith('deployment.kubernetes.io/')) continue;
    copied[key] = value;
  }
  return copied;
}

export class DeploymentController implements Reconciler {
  readonly name = COMPONENT;

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {}

  async sync(key: string): Promise<void> {
    const live = await this.access.liveByKey(DEPLOYMENTS, key);
    if (live === undefined) return;
    const { namespace, object: deployment } = live;
    const selector = recordAt(deployment, 'spec', 'selector');
    if (selector === undefined || Object.keys(selector).length === 0) return;
    const all = (await this.access.list(REPLICA_SETS, namespace)).filter((rs) => rs.metadata.deletionTimestamp === undefined);
    const owned = await this.#claim(deployment, all);
    const template = recordAt(deployment, 'spec', 'template');
    const matching = owned.filter((rs) => sameTemplate(recordAt(rs, 'spec', 'template'), template)).sort(byCreation);
    let newRs: BuiltinObject | undefined = matching[0];
    const olds = owned.filter((rs) => rs !== newRs).sort(byCreation);
    const paused = recordAt(deployment, 'spec')?.['paused'] === true;
    if (paused) {
      // A paused Deployment only scales (sync): the new ReplicaSet, or the newest old one, follows spec.replicas.
      // FindActiveOrLatest: the one ReplicaSet with replicas, else the newest (several with replicas would scale proportionally; not simulated).
      const withReplicas = owned.filter((rs) => specReplicas(rs) > 0);
      const latest = newRs ?? [...olds].sort((a, b) => revisionOf(b) - revisionOf(a))[0];
      const target = withReplicas.length === 1 ? withReplicas[0] : withReplicas.length === 0 ? latest : undefined;
      if (target !== undefined) await this.#scale(deployment, target, specReplicas(deployment));
      return this.#status(deployment, newRs, olds, true);
    }
    newRs = await this.#newReplicaSet(deployment, newRs, olds);
    if (newRs === undefined) return;
    const strategy = recordAt(deployment, 'spec', 'strategy')?.['type'];
    if (strategy === 'Recreate') await this.#recreate(deployment, newRs, olds, namespace);
    else if (!(await this.#reconcileNew(deployment, newRs, olds))) await this.#reconcileOld(deployment, newRs, olds);
    const fresh = await this.access.list(REPLICA_SETS, namespace);
    const byUid = new Map(fresh.map((rs) => [rs.metadata.uid, rs]));
    const latestNew = byUid.get(newRs.metadata.uid) ?? newRs;
    const latestOld = olds.map((rs) => byUid.get(rs.metadata.uid)).filter((rs): rs is BuiltinObject => rs !== undefined);
    await this.#cleanup(deployment, latestNew, latestOld);
    await this.#status(deployment, latestNew, latestOld, false);
  }

  /** #claim is the ReplicaSets the Deployment controls, matching orphans adopted. */
  async #claim(deployment: BuiltinObject, all: readonly BuiltinObject[]): Promise<BuiltinObject[]> {
    const uid = deployment.metadata.uid;
    const selector = recordAt(deployment, 'spec', 'selector') ?? {};
    const owned: BuiltinObject[] = [];
    for (const rs of all) {
      const controller = controllerOf(rs);
      if (controller === uid) owned.push(rs);
      else if (controller === undefined && selectorMatches(selector, rs.metadata.labels ?? {})) {
        const adopted = await this.access.update(
          REPLICA_SETS,
          rs.metadata.namespace,
          rs.metadata.name ?? '',
          (object) => {
            if (controllerOf(object) === undefined)
              object.metadata.ownerReferences = [...(object.metadata.ownerReferences ?? []), controllerRef(deployment, DEPLOYMENT_TYPE)];
          },
          CONTROLLER_MANAGER,
        );
        if (adopted !== undefined) owned.push(adopted);
      }
    }
    return owned;
  }

  /** #newReplicaSet brings the new ReplicaSet's annotations up to date, or creates it (getNewReplicaSet). */
  async #newReplicaSet(deployment: BuiltinObject, existing: BuiltinObject | undefined, olds: readonly BuiltinObject[]): Promise<BuiltinObject | undefined> {
    const maxOld = Math.max(0, ...olds.map(revisionOf));
    const newRevision = maxOld + 1;
    const replicas = specReplicas(deployment);
    const { surge } = fenceposts(deployment);
    const name = deployment.metadata.name ?? '';
    const namespace = deployment.metadata.namespace;
    if (existing !== undefined) {
      const updated = await this.access.update(
        REPLICA_SETS,
        namespace,
        existing.metadata.name ?? '',
        (object) => {
          const annotations = { ...(object.metadata.annotations ?? {}) };
          const old = Number(annotations[REVISION] ?? '0') || 0;
          if (old < newRevision) {
            if (old > 0) annotations[REVISION_HISTORY] = annotations[REVISION_HISTORY] === undefined ? String(old) : `${annotations[REVISION_HISTORY]},${old}`;
            annotations[REVISION] = String(newRevision);
          }
          annotations[DESIRED_REPLICAS] = String(replicas);
          annotations[MAX_REPLICAS] = String(replicas + surge);
          object.metadata.annotations = annotations;
          const minReady = recordAt(deployment, 'spec')?.['minReadySeconds'];
          (object['spec'] as Json)['minReadySeconds'] = minReady ?? 0;
        },
        CONTROLLER_MANAGER,
      );
      if (updated === undefined) return undefined;
      await this.#revision(deployment, updated);
      if (conditionOf(deployment, 'Progressing') === undefined && recordAt(deployment, 'spec')?.['progressDeadlineSeconds'] !== undefined) {
        await this.#writeCondition(deployment, 'Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${updated.metadata.name}"`);
      }
      return updated;
    }
    const collisionCount = recordAt(deployment, 'status')?.['collisionCount'] as number | undefined;
    const template = structuredClone(recordAt(deployment, 'spec', 'template') ?? {}) as Json;
    const hash = podTemplateHash(template, collisionCount);
    const templateMeta = (template['metadata'] ?? {}) as Json;
    templateMeta['labels'] = { ...((templateMeta['labels'] ?? {}) as Record<string, string>), [HASH_LABEL]: hash };
    template['metadata'] = templateMeta;
    const selector = structuredClone(recordAt(deployment, 'spec', 'selector') ?? {}) as Json;
    selector['matchLabels'] = { ...((selector['matchLabels'] ?? {}) as Record<string, string>), [HASH_LABEL]: hash };
    const current = olds.reduce((sum, rs) => sum + specReplicas(rs), 0);
    const initial = recordAt(deployment, 'spec', 'strategy')?.['type'] === 'Recreate' ? 0 : Math.max(0, Math.min(replicas + surge - current, replicas));
    const rsName = `${name}-${hash}`;
    let created: BuiltinObject;
    try {
      created = await this.access.create(
        REPLICA_SETS,
        namespace,
        {
          metadata: {
            name: rsName,
            labels: { ...((templateMeta['labels'] ?? {}) as Record<string, string>) },
            annotations: {
              ...copiedAnnotations(deployment),
              [REVISION]: String(newRevision),
              [DESIRED_REPLICAS]: String(replicas),
              [MAX_REPLICAS]: String(replicas + surge),
            },
            ownerReferences: [controllerRef(deployment, DEPLOYMENT_TYPE)],
          },
          spec: { replicas: initial, minReadySeconds: recordAt(deployment, 'spec')?.['minReadySeconds'] ?? 0, selector, template },
        } as KubeObject,
        CONTROLLER_MANAGER,
      );
    } catch (error) {
      if (error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists') {
        // Someone else's ReplicaSet holds the name: count the collision, the next sync hashes anew.
        await this.access.updateStatus(
          DEPLOYMENTS,
          namespace,
          name,
          (object) => {
            const status = (object['status'] ?? {}) as Json;
            status['collisionCount'] = Number(status['collisionCount'] ?? 0) + 1;
            object['status'] = status;
          },
          CONTROLLER_MANAGER,
        );
        this.queue.add(this, `${namespace}/${name}`);
        return undefined;
      }
      await this.#writeCondition(
        deployment,
        'Progressing',
        'False',
        'ReplicaSetCreateError',
        `Failed to create new replica set "${rsName}": ${(error as Error).message}`,
      );
      throw error;
    }
    if (initial > 0)
      await this.access.event(deployment, DEPLOYMENT_TYPE, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${rsName} from 0 to ${initial}`, {
        component: COMPONENT,
      });
    await this.#revision(deployment, created);
    if (recordAt(deployment, 'spec')?.['progressDeadlineSeconds'] !== undefined)
      await this.#writeCondition(deployment, 'Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${rsName}"`);
    return created;
  }

  /** #revision copies the new ReplicaSet's revision onto the Deployment. */
  async #revision(deployment: BuiltinObject, rs: BuiltinObject): Promise<void> {
    const revision = rs.metadata.annotations?.[REVISION];
    if (revision === undefined || deployment.metadata.annotations?.[REVISION] === revision) return;
    await this.access.update(
      DEPLOYMENTS,
      deployment.metadata.namespace,
      deployment.metadata.name ?? '',
      (object) => {
        object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [REVISION]: revision };
      },
      CONTROLLER_MANAGER,
    );
  }

  async #writeCondition(deployment: BuiltinObject, type: string, status: string, reason: string, message: string): Promise<void> {
    const time = formatTime(this.access.now());
    await this.access.updateStatus(
      DEPLOYMENTS,
      deployment.metadata.namespace,
      deployment.metadata.name ?? '',
      (object) => setCondition(object, { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message }),
      CONTROLLER_MANAGER,
    );
  }

  /** #scale sets a ReplicaSet's replicas (and the Deployment's replica annotations), with the ScalingReplicaSet Event. */
  async #scale(deployment: BuiltinObject, rs: BuiltinObject, to: number): Promise<boolean> {
    const from = specReplicas(rs);
    const replicas = specReplicas(deployment);
    const { surge } = fenceposts(deployment);
    const annotationsCurrent =
      rs.metadata.annotations?.[DESIRED_REPLICAS] === String(replicas) && rs.metadata.annotations?.[MAX_REPLICAS] === String(replicas + surge);
    if (from === to && annotationsCurrent) return false;
    await this.access.update(
      REPLICA_SETS,
      rs.metadata.namespace,
      rs.metadata.name ?? '',
      (object) => {
        (object['spec'] as Json)['replicas'] = to;
        object.metadata.annotations = {
          ...(object.metadata.annotations ?? {}),
          [DESIRED_REPLICAS]: String(replicas),
          [MAX_REPLICAS]: String(replicas + surge),
        };
      },
      CONTROLLER_MANAGER,
    );
    if (from === to) return false;
    const direction = to > from ? 'up' : 'down';
    await this.access.event(
      deployment,
      DEPLOYMENT_TYPE,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${direction} replica set ${rs.metadata.name} from ${from} to ${to}`,
      {
        component: COMPONENT,
      },
    );
    return true;
  }

  /** #reconcileNew scales the new ReplicaSet up as far as maxSurge allows, or down to spec.replicas (reconcileNewReplicaSet). */
  async #reconcileNew(deployment: BuiltinObject, newRs: BuiltinObject, olds: readonly BuiltinObject[]): Promise<boolean> {
    const replicas = specReplicas(deployment);
    const current = specReplicas(newRs);
    if (current === replicas) return false;
    if (current > replicas) return this.#scale(deployment, newRs, replicas);
    const { surge } = fenceposts(deployment);
    const total = current + olds.reduce((sum, rs) => sum + specReplicas(rs), 0);
    const room = replicas + surge - total;
    if (room <= 0) return false;
    return this.#scale(deployment, newRs, current + Math.min(room, replicas - current));
  }

  /** #reconcileOld scales old ReplicaSets down, unhealthy Pods first, keeping replicas − maxUnavailable available (reconcileOldReplicaSets). */
  async #reconcileOld(deployment: BuiltinObject, newRs: BuiltinObject, olds: readonly BuiltinObject[]): Promise<boolean> {
    const oldCount = olds.reduce((sum, rs) => sum + specReplicas(rs), 0);
    if (oldCount === 0) return false;
    const replicas = specReplicas(deployment);
    const { unavailable } = fenceposts(deployment);
    const minAvailable = replicas - unavailable;
    const allCount = oldCount + specReplicas(newRs);
    const newUnavailable = specReplicas(newRs) - statusCount(newRs, 'availableReplicas');
    const maxScaledDown = allCount - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    let scaled = 0;
    const remaining = new Map(olds.map((rs) => [rs.metadata.uid, specReplicas(rs)]));
    // Unhealthy replicas of old ReplicaSets go first (cleanupUnhealthyReplicas).
    for (const rs of olds) {
      if (scaled >= maxScaledDown) break;
      const spec = remaining.get(rs.metadata.uid) ?? 0;
      const unhealthy = spec - statusCount(rs, 'availableReplicas');
      if (spec === 0 || unhealthy <= 0) continue;
      const down = Math.min(maxScaledDown - scaled, unhealthy);
      await this.#scale(deployment, rs, spec - down);
      remaining.set(rs.metadata.uid, spec - down);
      scaled += down;
    }
    // Then as many available ones as keep minAvailable (scaleDownOldReplicaSetsForRollingUpdate).
    const available = [newRs, ...olds].reduce((sum, rs) => sum + statusCount(rs, 'availableReplicas'), 0);
    if (available > minAvailable) {
      const total = available - minAvailable;
      let down = 0;
      for (const rs of olds) {
        if (down >= total) break;
        const spec = remaining.get(rs.metadata.uid) ?? 0;
        if (spec === 0) continue;
        const step = Math.min(spec, total - down);
        await this.#scale(deployment, rs, spec - step);
        down += step;
        scaled += step;
      }
    }
    return scaled > 0;
  }

  /** #recreate scales every old ReplicaSet to zero, waits until their Pods are gone, then scales the new one up (rolloutRecreate). */
  async #recreate(deployment: BuiltinObject, newRs: BuiltinObject, olds: readonly BuiltinObject[], namespace: string): Promise<void> {
    let scaledDown = false;
    for (const rs of olds) if (specReplicas(rs) > 0) scaledDown = (await this.#scale(deployment, rs, 0)) || scaledDown;
    if (scaledDown) return;
    const oldUids = new Set(olds.map((rs) => rs.metadata.uid));
    const pods = await this.access.list(PODS, namespace);
    if (pods.some((pod) => oldUids.has(controllerOf(pod)) && (isActivePod(pod) || pod.metadata.deletionTimestamp !== undefined))) return;
    await this.#scale(deployment, newRs, specReplicas(deployment));
  }

  /** #cleanup deletes old, empty ReplicaSets beyond revisionHistoryLimit once the rollout is complete, oldest revision first. */
  async #cleanup(deployment: BuiltinObject, newRs: BuiltinObject, olds: readonly BuiltinObject[]): Promise<void> {
    const limit = Number(recordAt(deployment, 'spec')?.['revisionHistoryLimit'] ?? 10);
    const empty = olds.filter((rs) => specReplicas(rs) === 0 && statusCount(rs, 'replicas') === 0).sort((a, b) => revisionOf(a) - revisionOf(b));
    const excess = empty.length - limit;
    if (excess <= 0 || specReplicas(newRs) !== specReplicas(deployment)) return;
    for (const rs of empty.slice(0, excess)) await this.access.delete(REPLICA_SETS, rs.metadata.namespace, rs.metadata.name ?? '', rs.metadata.uid);
  }

  /** #status writes the counts and conditions (calculateStatus, syncRolloutStatus). */
  async #status(deployment: BuiltinObject, newRs: BuiltinObject | undefined, olds: readonly BuiltinObject[], paused: boolean): Promise<void> {
    const all = newRs === undefined ? [...olds] : [newRs, ...olds];
    const replicas = specReplicas(deployment);
    const { unavailable } = fenceposts(deployment);
    const available = all.reduce((sum, rs) => sum + statusCount(rs, 'availableReplicas'), 0);
    const counts = {
      observedGeneration: deployment.metadata.generation,
      replicas: all.reduce((sum, rs) => sum + statusCount(rs, 'replicas'), 0),
      updatedReplicas: newRs === undefined ? 0 : statusCount(newRs, 'replicas'),
      readyReplicas: all.reduce((sum, rs) => sum + statusCount(rs, 'readyReplicas'), 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, all.reduce((sum, rs) => sum + specReplicas(rs), 0) - available),
    };
    const now = this.access.now();
    const time = formatTime(now);
    const deadline = recordAt(deployment, 'spec')?.['progressDeadlineSeconds'] as number | undefined;
    const key = `${deployment.metadata.namespace}/${deployment.metadata.name}`;
    await this.access.updateStatus(
      DEPLOYMENTS,
      deployment.metadata.namespace,
      deployment.metadata.name ?? '',
      (object) => {
        const previous = { ...((object['status'] ?? {}) as Json) };
        object['status'] = { ...previous, ...counts };
        if (available >= replicas - unavailable)
          setCondition(object, {
            type: 'Available',
            status: 'True',
            lastUpdateTime: time,
            lastTransitionTime: time,
            reason: 'MinimumReplicasAvailable',
            message: 'Deployment has minimum availability.',
          });
        else
          setCondition(object, {
            type: 'Available',
            status: 'False',
            lastUpdateTime: time,
            lastTransitionTime: time,
            reason: 'MinimumReplicasUnavailable',
            message: 'Deployment does not have minimum availability.',
          });
        if (deadline === undefined) {
          removeCondition(object, 'Progressing');
          return;
        }
        const current = conditionOf(object, 'Progressing');
        if (paused) {
          if (current?.['reason'] !== 'DeploymentPaused')
            setCondition(object, {
              type: 'Progressing',
              status: 'Unknown',
              lastUpdateTime: time,
              lastTransitionTime: time,
              reason: 'DeploymentPaused',
              message: 'Deployment is paused',
            });
          return;
        }
        if (current?.['reason'] === 'DeploymentPaused') {
          setCondition(object, {
            type: 'Progressing',
            status: 'Unknown',
            lastUpdateTime: time,
            lastTransitionTime: time,
            reason: 'DeploymentResumed',
            message: 'Deployment is resumed',
          });
        }
        const rsName = newRs?.metadata.name ?? '';
        const complete =
          counts.updatedReplicas === replicas &&
          counts.replicas === replicas &&
          available === replicas &&
          (counts.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
        const oldReplicas = (status: Json) => Number(status['replicas'] ?? 0) - Number(status['updatedReplicas'] ?? 0);
        const progressing =
          counts.updatedReplicas > Number(previous['updatedReplicas'] ?? 0) ||
          counts.replicas - counts.updatedReplicas < oldReplicas(previous) ||
          counts.readyReplicas > Number(previous['readyReplicas'] ?? 0) ||
          available > Number(previous['availableReplicas'] ?? 0);
        const latest = conditionOf(object, 'Progressing');
        if (complete && newRs !== undefined) {
          setCondition(object, {
            type: 'Progressing',
            status: 'True',
            lastUpdateTime: time,
            lastTransitionTime: latest?.['status'] === 'True' ? latest['lastTransitionTime'] : time,
            reason: 'NewReplicaSetAvailable',
            message: `ReplicaSet "${rsName}" has successfully progressed.`,
          });
        } else if (progressing && newRs !== undefined) {
          removeCondition(object, 'Progressing');
          setCondition(object, {
            type: 'Progressing',
            status: 'True',
            lastUpdateTime: time,
            lastTransitionTime: latest?.['status'] === 'True' ? latest['lastTransitionTime'] : time,
            reason: 'ReplicaSetUpdated',
            message: `ReplicaSet "${rsName}" is progressing.`,
          });
        } else if (!complete && latest !== undefined && latest['reason'] !== 'NewReplicaSetAvailable' && latest['reason'] !== 'ProgressDeadlineExceeded') {
          const since = Date.parse(String(latest['lastUpdateTime'] ?? ''));
          const due = since + deadline * 1000;
          if (!Number.isNaN(due) && due <= now)
            setCondition(object, {
              type: 'Progressing',
              status: 'False',
              lastUpdateTime: time,
              lastTransitionTime: time,
              reason: 'ProgressDeadlineExceeded',
              message: `ReplicaSet "${rsName}" has timed out progressing.`,
            });
          else if (!Number.isNaN(due)) this.queue.after(due - now, this, key);
        }
      },
      CONTROLLER_MANAGER,
    );
  }
}
