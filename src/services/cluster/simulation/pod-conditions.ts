/** Pod and workload status conditions: reading them, and setting one as the kubelet and controllers do (same status and reason: unchanged; the transition time kept while the status stays). */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';

type Json = Record<string, unknown>;

/** conditionOf is an object's status condition of `type`, if any. */
export function conditionOf(object: KubeObject, type: string): Json | undefined {
  return listOf(recordAt(object, 'status')?.['conditions']).find((condition) => condition['type'] === type);
}

/** isPodReady is true when a Pod's Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return conditionOf(pod, 'Ready')?.['status'] === 'True';
}

/** isPodAvailable is true when a Pod has been Ready for `minReadySeconds` at `now` (podutil.IsPodAvailable). */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const ready = conditionOf(pod, 'Ready');
  if (ready?.['status'] !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(String(ready['lastTransitionTime'] ?? ''));
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}

/** phaseOf is a Pod's phase. */
export function phaseOf(pod: KubeObject): string {
  return String(recordAt(pod, 'status')?.['phase'] ?? '');
}

/** isTerminal is true for a Pod that has Succeeded or Failed. */
export function isTerminal(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * setCondition puts `condition` into `status.conditions`: an equal status and reason changes
 * nothing, a new status replaces it (at the end, as the controllers' Set*Condition helpers
 * append), the same status with another reason keeps the transition time.
 */
export function setCondition(object: Json, condition: Json, options: { readonly inPlace?: boolean } = {}): void {
  const status = (object['status'] ?? {}) as Json;
  object['status'] = status;
  const conditions = listOf(status['conditions']);
  const index = conditions.findIndex((entry) => entry['type'] === condition['type']);
  const current = index === -1 ? undefined : conditions[index];
  if (current !== undefined && current['status'] === condition['status'] && current['reason'] === condition['reason']) {
    if (current['message'] !== condition['message']) conditions[index] = { ...current, message: condition['message'] };
    status['conditions'] = conditions;
    return;
  }
  const next = { ...condition };
  if (current !== undefined && current['status'] === condition['status'] && current['lastTransitionTime'] !== undefined)
    next['lastTransitionTime'] = current['lastTransitionTime'];
  if (index !== -1 && options.inPlace === true) conditions[index] = next;
  else {
    if (index !== -1) conditions.splice(index, 1);
    conditions.push(next);
  }
  status['conditions'] = conditions;
}

/** removeCondition drops the condition of `type`. */
export function removeCondition(object: Json, type: string): void {
  const status = (object['status'] ?? {}) as Json;
  if (status['conditions'] === undefined) return;
  status['conditions'] = listOf(status['conditions']).filter((entry) => entry['type'] !== type);
}
