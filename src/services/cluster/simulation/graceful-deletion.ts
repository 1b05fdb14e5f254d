/**
 * Pods' graceful deletion with `--workloads simulate` (upstream `pkg/registry/core/pod/strategy.go`
 * CheckGracefulDelete): a DELETE gives the Pod its grace — the request's `gracePeriodSeconds`, else
 * `spec.terminationGracePeriodSeconds` — and the simulated kubelet removes it once the clock passes
 * `deletionTimestamp`. A Pod no Node runs, or one that has finished, goes at once. Without the
 * simulation no kubelet would ever finish the deletion, so Pods go at once (envtest's behaviour).
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import { storeKindOf } from '../builtin/store-kinds.ts';
import { recordAt } from '../resources/pod-spec.ts';

const PODS_STORE_KIND = storeKindOf({ group: '', resource: 'pods' });

/** podGracePeriodSeconds is the registry hook: the grace a Pod's DELETE gets, undefined for other kinds. */
export function podGracePeriodSeconds(view: AnyView, object: KubeObject, requested: number | undefined): number | undefined {
  if (view.storeKind !== PODS_STORE_KIND || view.subresource !== undefined) return undefined;
  const spec = recordAt(object, 'spec');
  const phase = recordAt(object, 'status')?.['phase'];
  if (String(spec?.['nodeName'] ?? '') === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
  const grace = requested ?? Number(spec?.['terminationGracePeriodSeconds'] ?? 30);
  // A negative grace is taken as 1 s, as the strategy does.
  return grace < 0 ? 1 : grace;
}
