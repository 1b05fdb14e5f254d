/** `GET /_fogbank/clock` reads the server's clock; `POST` freezes, unfreezes, sets or advances it. */
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../../core/control-plane.ts';
import { readClockChange } from './clock-body.ts';
import { ControlError } from './errors.ts';

/** ClockState is the clock as the admin API answers it. */
export interface ClockState {
  /** RFC 3339, in UTC. */
  readonly now: string;
  readonly frozen: boolean;
}

/** clockState reads the control plane's clock. */
export function clockState(control: ControlPlane): ClockState {
  return { now: new Date(control.clock.now()).toISOString(), frozen: control.clock.frozen };
}

/** registerClockRoutes adds the clock's two routes. */
export function registerClockRoutes(app: FastifyInstance, control: ControlPlane): void {
  app.get('/_fogbank/clock', async () => clockState(control));
  app.post('/_fogbank/clock', async (request) => {
    const change = readClockChange(request.body);
    if (change instanceof ControlError) throw change;
    if ('advance' in change) await control.advance(change.advance);
    else if ('set' in change) control.clock.set(change.set);
    else if (change.freeze) control.clock.freeze();
    else control.clock.unfreeze();
    return clockState(control);
  });
}
