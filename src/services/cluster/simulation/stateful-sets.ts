/**
 * The StatefulSet controller (upstream `pkg/controller/statefulset/{stateful_set_control.go,
 * stateful_set_utils.go,stateful_pod_control.go}`): Pods `<set>-<ordinal>` (from
 * `spec.ordinals.start`) with the identity labels, hostname and subdomain, their claims
 * `<template>-<pod>` from volumeClaimTemplates made first; `OrderedReady` makes one ordinal at a
 * time once the lower ones are Running and Ready and removes from the top one at a time,
 * `Parallel` does all at once; the revision is a ControllerRevision `<set>-<hash>`, and
 * RollingUpdate replaces Pods of an older revision from the highest ordinal down to `partition`,
 * one at a time; the status counts and revisions as kubectl rollout status reads them.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import {
  type ClusterAccess,
  CONTROLLER_REVISIONS,
  controllerOf,
  controllerRef,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  STATEFUL_SET_TYPE,
  STATEFUL_SETS,
} from './cluster-access.ts';
import { isPodAvailable, isPodReady, isTerminal, phaseOf } from './pod-conditions.ts';
import { podTemplateHash } from './pod-template-hash.ts';
import { CONTROLLER_MANAGER, podFromTemplate } from './replica-sets.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

const COMPONENT = 'statefulset-controller';
const REVISION_LABEL = 'controller-revision-hash';

function ordinalOf(set: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

function runningAndReady(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Running' && isPodReady(pod);
}

export class StatefulSetController implements Reconciler {
  readonly name = COMPONENT;

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {}

  async sync(key: string): Promise<void> {
    const found = await this.access.liveByKey(STATEFUL_SETS, key);
    if (found === undefined) return;
    const { namespace, object: set } = found;
    const spec = recordAt(set, 'spec') ?? {};
    const name = set.metadata.name ?? '';
    const replicas = Number(spec['replicas'] ?? 1);
    const start = Number(recordAt(spec, 'ordinals')?.['start'] ?? 0);
    const parallel = spec['podManagementPolicy'] === 'Parallel';
    const rolling = recordAt(spec, 'updateStrategy')?.['type'] !== 'OnDelete';
    const partition = Number(recordAt(spec, 'updateStrategy', 'rollingUpdate')?.['partition'] ?? 0);
    const updateRevision = await this.#revision(set);
    const pods = (await this.access.list(PODS, namespace)).filter((pod) => controllerOf(pod) === set.metadata.uid);
    const byOrdinal = new Map<number, BuiltinObject>();
    for (const pod of pods) {
      const ordinal = ordinalOf(set, pod);
      if (ordinal !== undefined) byOrdinal.set(ordinal, pod);
    }
    const status = (recordAt(set, 'status') ?? {}) as Json;
    const currentRevision = String(status['currentRevision'] ?? '') || updateRevision;
    const now = this.access.now();
    // Failed Pods are replaced (the controller deletes them and makes them again).
    for (const pod of pods) if (isTerminal(pod) && pod.metadata.deletionTimestamp === undefined) await this.#deletePod(set, pod);
    let blocked = false;
    for (let ordinal = start; ordinal < start + replicas; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (pod === undefined) {
        if (blocked) break;
        await this.#createPod(set, ordinal, updateRevision);
        if (!parallel) blocked = true;
        continue;
      }
      if (!parallel && (!runningAndReady(pod) || pod.metadata.deletionTimestamp !== undefined)) blocked = true;
    }
    // Scale down: the highest ordinal first; OrderedReady one at a time and only with the rest Ready.
    const condemned = [...byOrdinal.entries()].filter(([ordinal]) => ordinal < start || ordinal >= start + replicas).sort(([a], [b]) => b - a);
    for (const [, pod] of condemned) {
      if (pod.metadata.deletionTimestamp !== undefined) {
        if (!parallel) break;
        continue;
      }
      if (!parallel && blocked) break;
      await this.#deletePod(set, pod);
      if (!parallel) break;
    }
    // RollingUpdate: with every Pod Running and Ready, replace the highest outdated ordinal ≥ partition.
    const inRange = [...byOrdinal.entries()].filter(([ordinal]) => ordinal >= start && ordinal < start + replicas);
    if (
      rolling &&
      !blocked &&
      condemned.length === 0 &&
      inRange.length === replicas &&
      inRange.every(([, pod]) => runningAndReady(pod) && pod.metadata.deletionTimestamp === undefined)
    ) {
      const outdated = inRange
        .filter(([ordinal, pod]) => ordinal - start >= partition && pod.metadata.labels?.[REVISION_LABEL] !== updateRevision)
        .sort(([a], [b]) => b - a)[0];
      if (outdated !== undefined) await this.#deletePod(set, outdated[1]);
    }
    const live = pods.filter((pod) => !isTerminal(pod));
    const ready = live.filter(isPodReady).length;
    const minReady = Number(spec['minReadySeconds'] ?? 0);
    const updated = live.filter((pod) => pod.metadata.labels?.[REVISION_LABEL] === updateRevision).length;
    const atCurrent = live.filter((pod) => pod.metadata.labels?.[REVISION_LABEL] === currentRevision).length;
    const rolledOut = updated === replicas && ready === replicas;
    await this.access.updateStatus(
      STATEFUL_SETS,
      namespace,
      name,
      (object) => {
        object['status'] = {
          ...((object['status'] ?? {}) as Json),
          observedGeneration: set.metadata.generation,
          replicas: live.length,
          readyReplicas: ready,
          currentReplicas: rolledOut ? updated : atCurrent,
          updatedReplicas: updated,
          availableReplicas: live.filter((pod) => isPodAvailable(pod, minReady, now)).length,
          currentRevision: rolledOut ? updateRevision : currentRevision,
          updateRevision,
          collisionCount: Number(status['collisionCount'] ?? 0),
        };
      },
      CONTROLLER_MANAGER,
    );
  }

  /** #revision is the ControllerRevision of the current template, made when missing (revision = the highest + 1). */
  async #revision(set: BuiltinObject): Promise<string> {
    const template = recordAt(set, 'spec', 'template') ?? {};
    const name = `${set.metadata.name}-${podTemplateHash(template, Number(recordAt(set, 'status')?.['collisionCount'] ?? 0))}`;
    const revisions = (await this.access.list(CONTROLLER_REVISIONS, set.metadata.namespace)).filter((revision) => controllerOf(revision) === set.metadata.uid);
    if (revisions.some((revision) => revision.metadata.name === name)) return name;
    const highest = Math.max(0, ...revisions.map((revision) => Number(revision['revision'] ?? 0)));
    try {
      await this.access.create(
        CONTROLLER_REVISIONS,
        set.metadata.namespace,
        {
          metadata: {
            name,
            labels: { ...((recordAt(set, 'spec', 'selector')?.['matchLabels'] ?? {}) as Record<string, string>), [REVISION_LABEL]: name },
            ownerReferences: [controllerRef(set, STATEFUL_SET_TYPE)],
          },
          data: { spec: { template: { ...structuredClone(template), $patch: 'replace' } } },
          revision: highest + 1,
        } as KubeObject,
        CONTROLLER_MANAGER,
      );
    } catch (error) {
      if (!(error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists')) throw error;
    }
    return name;
  }

  async #createPod(set: BuiltinObject, ordinal: number, revision: string): Promise<void> {
    const name = `${set.metadata.name}-${ordinal}`;
    const template = recordAt(set, 'spec', 'template');
    const pod = podFromTemplate(template, set, STATEFUL_SET_TYPE, '');
    delete pod.metadata.generateName;
    pod.metadata.name = name;
    pod.metadata.labels = {
      ...(pod.metadata.labels ?? {}),
      [REVISION_LABEL]: revision,
      'statefulset.kubernetes.io/pod-name': name,
      'apps.kubernetes.io/pod-index': String(ordinal),
    };
    const podSpec = pod['spec'] as Json;
    podSpec['hostname'] = name;
    const service = recordAt(set, 'spec')?.['serviceName'];
    if (typeof service === 'string' && service !== '') podSpec['subdomain'] = service;
    const claims = listOf(recordAt(set, 'spec')?.['volumeClaimTemplates']);
    const volumes = listOf(podSpec['volumes']);
    for (const claim of claims) {
      const claimTemplate = String(recordAt(claim, 'metadata')?.['name'] ?? '');
      const claimName = `${claimTemplate}-${name}`;
      await this.#ensureClaim(set, claim, claimName, name);
      const volume = { name: claimTemplate, persistentVolumeClaim: { claimName } };
      const existing = volumes.findIndex((entry) => entry['name'] === claimTemplate);
      if (existing === -1) volumes.push(volume);
      else volumes[existing] = volume;
    }
    if (volumes.length > 0) podSpec['volumes'] = volumes;
    try {
      await this.access.create(PODS, set.metadata.namespace, pod, CONTROLLER_MANAGER);
      await this.access.event(set, STATEFUL_SET_TYPE, 'Normal', 'SuccessfulCreate', `create Pod ${name} in StatefulSet ${set.metadata.name} successful`, {
        component: COMPONENT,
      });
    } catch (error) {
      // The name is still held by a Pod being deleted: the next sync (its deletion) makes it again.
      if (error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists') return;
      await this.access.event(
        set,
        STATEFUL_SET_TYPE,
        'Warning',
        'FailedCreate',
        `create Pod ${name} in StatefulSet ${set.metadata.name} failed error: ${(error as Error).message}`,
        {
          component: COMPONENT,
        },
      );
      throw error;
    }
  }

  async #ensureClaim(set: BuiltinObject, claim: Json, claimName: string, podName: string): Promise<void> {
    if ((await this.access.get(PERSISTENT_VOLUME_CLAIMS, set.metadata.namespace, claimName)) !== undefined) return;
    const metadata = (recordAt(claim, 'metadata') ?? {}) as Json;
    const retention = recordAt(set, 'spec', 'persistentVolumeClaimRetentionPolicy');
    const owned = retention?.['whenDeleted'] === 'Delete';
    try {
      await this.access.create(
        PERSISTENT_VOLUME_CLAIMS,
        set.metadata.namespace,
        {
          metadata: {
            name: claimName,
            labels: {
              ...((metadata['labels'] ?? {}) as Record<string, string>),
              ...((recordAt(set, 'spec', 'selector')?.['matchLabels'] ?? {}) as Record<string, string>),
            },
            ...(metadata['annotations'] === undefined ? {} : { annotations: metadata['annotations'] as Record<string, string> }),
            ...(owned ? { ownerReferences: [controllerRef(set, STATEFUL_SET_TYPE)] } : {}),
          },
          spec: structuredClone(recordAt(claim, 'spec') ?? {}),
        } as KubeObject,
        CONTROLLER_MANAGER,
      );
      await this.access.event(
        set,
        STATEFUL_SET_TYPE,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${claimName} Pod ${podName} in StatefulSet ${set.metadata.name} success`,
        {
          component: COMPONENT,
        },
      );
    } catch (error) {
      if (!(error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists')) throw error;
    }
  }

  async #deletePod(set: BuiltinObject, pod: BuiltinObject): Promise<void> {
    if (await this.access.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid))
      await this.access.event(
        set,
        STATEFUL_SET_TYPE,
        'Normal',
        'SuccessfulDelete',
        `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
        {
          component: COMPONENT,
        },
      );
  }
}
