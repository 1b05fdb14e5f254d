/**
 * RBAC for the cluster family, assembled: the authorizer guarding every request (with
 * impersonation), escalation prevention on RBAC writes, the self access reviews, the default
 * policy reconciled at start, and the aggregation controller on the change feed.
 */
import type { FastifyInstance } from 'fastify';
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { RunSingleton, Singleton } from '../../../core/singletons.ts';
import type { Store } from '../../../store/index.ts';
import type { GenericRegistry } from '../apimachinery/registry.ts';
import { AUTHORIZATION_GROUP, registerAccessReviews } from './access-reviews.ts';
import type { AggregationController } from './aggregation-controller.ts';
import { useClusterAuthorization } from './authorize-requests.ts';
import { Authorizer } from './authorizer.ts';
import { escalationCheck } from './escalation.ts';

/** Rbac is the family's authorization machinery for one store. */
export class Rbac {
  readonly authorizer: Authorizer;
  /** beforeWrite is the registry hook refusing RBAC escalation. */
  readonly beforeWrite: ReturnType<typeof escalationCheck>;
  #controller: AggregationController | undefined;
  #aggregation: Singleton | undefined;

  constructor(
    readonly store: Store,
    readonly groups: Vocabulary,
  ) {
    this.authorizer = new Authorizer(store, groups);
    this.beforeWrite = escalationCheck(this.authorizer);
  }

  /** install authorizes every request (after authentication) and serves the self reviews; `apiDomain` gives the second spelling of the group. */
  install(app: FastifyInstance, apiDomain: string): void {
    useClusterAuthorization(app, this.authorizer, this.groups);
    registerAccessReviews(app, this.authorizer, [AUTHORIZATION_GROUP, `authorization.${apiDomain}`]);
  }

  /**
   * start reconciles the default policy (unless told not to) and runs the aggregation controller
   * on the replica elected for it: a new leader re-lists every ClusterRole and reconciles, so
   * whatever changed while no controller ran (the old leader died) converges.
   */
  async start(registry: GenericRegistry, bootstrap: boolean, singleton: RunSingleton): Promise<void> {
    // Loaded with the family's working parts, not at process start.
    const { reconcilePolicy, startAggregation } = await import('./start-policy.ts');
    if (bootstrap) await reconcilePolicy(registry);
    this.#aggregation = await singleton('cluster/clusterrole-aggregation', async () => {
      const controller = await startAggregation(this.store, registry, this.groups);
      this.#controller = controller;
      return controller;
    });
  }

  /** reconcile brings the default policy back where the store lacks it (after its state was replaced). */
  async reconcile(registry: GenericRegistry): Promise<void> {
    const { reconcilePolicy } = await import('./start-policy.ts');
    await reconcilePolicy(registry);
  }

  /** aggregationIdle resolves when the aggregation controller (the latest this replica ran) has nothing left to do. */
  async aggregationIdle(): Promise<void> {
    await this.#controller?.idle();
  }

  /** stop ends the controller here and hands it over. */
  async stop(): Promise<void> {
    await this.#aggregation?.stop();
  }
}
