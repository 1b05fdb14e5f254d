/**
 * The admin API's routes: the clock (`/_fogbank/clock`), the request journal
 * (`/_fogbank/requests`, JSON or a live `text/event-stream`), and the whole state
 * (`/_fogbank/snapshot`, `/_fogbank/reset`) and fault rules (`/_fogbank/faults`), each a file of
 * its own driving what core adds to ControlPlane.
 */
import type { FastifyInstance } from 'fastify';
import { loadOnFirstUse } from '../../core/lazy.ts';
import type { PolicyEvaluation, PolicyEvaluationFactory } from '../../core/policy-evaluation.ts';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { authenticateAdmin } from './admin-auth.ts';
import { registerClockRoutes } from './clock-routes.ts';
import { registerFaultRoutes } from './fault-routes.ts';
import { ControlError } from './errors.ts';
import { registerPolicyRoutes } from './policy-routes.ts';
import { registerRequestRoutes } from './request-routes.ts';
import { registerSnapshotRoutes } from './snapshot-routes.ts';

/**
 * registerControl adds the admin API to its app; its handle ends live journal and policy streams
 * on close. `policyEvaluation` loads the policy-keeping family's evaluation (undefined: none).
 */
export async function registerControl(
  app: FastifyInstance,
  context: ServiceContext,
  policyEvaluation: () => Promise<PolicyEvaluationFactory | undefined>,
): Promise<ServiceHandle> {
  // Every route, known or not, is the admin's only: a stranger learns nothing, not even a 404.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      authenticateAdmin(request, context.auth);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  const control = context.control;
  if (control === undefined) {
    app.addHook('preHandler', async () => {
      throw new ControlError(503, 'This server was built without test controls.');
    });
    return { close: async () => undefined };
  }
  // The what-if counters live in this one instance, on the server's clock, until a reset.
  const evaluation = loadOnFirstUse(async (): Promise<PolicyEvaluation> => {
    const factory = await policyEvaluation();
    if (factory === undefined) throw new ControlError(501, 'This server has no family that keeps security policies.');
    return factory(context);
  });
  const policies = registerPolicyRoutes(app, control.clock, evaluation, () => [...control.requests.journal.newestFirst()].reverse());
  registerClockRoutes(app, control);
  registerSnapshotRoutes(app, control);
  const stopResetting = control.onReset(() => policies.reset());
  registerFaultRoutes(app, control);
  const streams = registerRequestRoutes(app, control);
  return {
    async close() {
      stopResetting();
      streams.closeAll();
      policies.closeAll();
      await policies.close();
    },
  };
}
