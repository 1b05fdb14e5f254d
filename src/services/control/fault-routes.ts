/**
 * Fault rules (`/_fogbank/faults`): the admin API over core/faults. A rule is one JSON object
 * (docs/testing.md); a rule that cannot be applied is a 400 naming what is wrong.
 */
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../../core/control-plane.ts';
import { FaultRuleError } from '../../core/faults/rule.ts';
import { ControlError } from './errors.ts';

/** registerFaultRoutes adds the routes that add, list and remove fault rules. */
export function registerFaultRoutes(app: FastifyInstance, control: ControlPlane): void {
  app.post('/_fogbank/faults', async (request, reply) => {
    try {
      return reply.code(201).send(await control.faults.add(request.body));
    } catch (error) {
      if (error instanceof FaultRuleError) throw new ControlError(400, error.message);
      throw error;
    }
  });
  app.get('/_fogbank/faults', async () => ({ faults: control.faults.list() }));
  app.delete('/_fogbank/faults', async (_request, reply) => {
    control.faults.clear();
    return reply.code(204).send();
  });
  app.delete<{ Params: { id: string } }>('/_fogbank/faults/:id', async (request, reply) => {
    if (!control.faults.remove(request.params.id)) throw new ControlError(404, `No fault rule with id '${request.params.id}'.`);
    return reply.code(204).send();
  });
}
