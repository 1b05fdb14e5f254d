/**
 * The ValidatingAdmissionPolicy status controller (k/k `pkg/controller/validatingadmissionpolicystatus`,
 * 1.32 `policy/validating/typechecking.go`): when a policy's generation is past its
 * `status.observedGeneration`, its validations' expressions and messageExpressions are checked
 * against each kind its resource rules name (wildcards skipped, at most 10), and
 * `status{observedGeneration, typeChecking{expressionWarnings[{fieldRef, warning}]}}` is written
 * through the status subresource, one `<group>/<version>, Kind=<Kind>: <error>\n` per kind. Objects
 * are typed `dyn` here, so the warnings are the compile errors (syntax, undeclared references,
 * result types), not the apiserver's schema-typed field checks.
 */
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import type { GenericRegistry } from '../../apimachinery/registry.ts';
import type { AnyView } from '../../apimachinery/strategy.ts';
import { compilePolicy, typeCheckingWarnings } from './compiled-policy.ts';

/** TYPE_CHECKING_MANAGER is the field manager of the controller's status writes. */
export const TYPE_CHECKING_MANAGER = 'validatingadmissionpolicy-status-controller';

const MAX_KINDS = 10;

/** kindsOf are the `<group>/<version>, Kind=<Kind>` texts of the kinds a policy's rules name explicitly. */
export function kindsOf(policy: KubeObject, views: readonly AnyView[]): string[] {
  const rules =
    (policy as { spec?: { matchConstraints?: { resourceRules?: Record<string, string[] | undefined>[] } } }).spec?.matchConstraints?.resourceRules ?? [];
  const out: string[] = [];
  for (const rule of rules) {
    for (const group of rule['apiGroups'] ?? []) {
      for (const version of rule['apiVersions'] ?? []) {
        for (const resource of rule['resources'] ?? []) {
          if (group === '*' || version === '*' || resource.includes('*') || resource.includes('/')) continue;
          const view = views.find((v) => v.group === group && v.version === version && v.resource === resource && v.subresource === undefined);
          if (view === undefined) continue;
          const text = `${view.group}/${view.version}, Kind=${view.kind}`;
          if (!out.includes(text)) out.push(text);
          if (out.length >= MAX_KINDS) return out;
        }
      }
    }
  }
  return out;
}

/** TypeChecking writes a policy's status when its spec changed since the last check. */
export class TypeChecking {
  readonly #pending = new Set<Promise<void>>();
  constructor(
    readonly registry: () => GenericRegistry,
    readonly views: () => readonly AnyView[],
  ) {}

  /** policyChanged checks one stored policy (no write when its status is current). */
  policyChanged(policy: KubeObject): void {
    const generation = policy.metadata.generation ?? 0;
    const observed = (policy as { status?: { observedGeneration?: number } }).status?.observedGeneration ?? 0;
    if (generation <= observed) return;
    const statusView = this.views().find(
      (view) => view.group === 'admissionregistration.k8s.io' && view.resource === 'validatingadmissionpolicies' && view.subresource === 'status',
    );
    if (statusView === undefined) return;
    const warnings = typeCheckingWarnings(compilePolicy(policy), kindsOf(policy, this.views()));
    const name = policy.metadata.name ?? '';
    const write = this.registry()
      .update(
        { view: statusView, group: statusView.group, namespace: undefined },
        name,
        (current) => {
          if (current === undefined) throw new Error('gone');
          const status = { ...((current as { status?: Record<string, unknown> }).status ?? {}) };
          status['observedGeneration'] = generation;
          status['typeChecking'] = warnings.length === 0 ? {} : { expressionWarnings: warnings };
          return { ...current, status } as KubeObject;
        },
        { dryRun: false, fieldManager: TYPE_CHECKING_MANAGER, allowCreate: false },
      )
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.#pending.delete(write));
    this.#pending.add(write);
  }

  /** idle resolves when the writes started so far are done. */
  async idle(): Promise<void> {
    await Promise.all([...this.#pending]);
  }
}
