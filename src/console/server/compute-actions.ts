/**
 * The console's compute actions (start, stop and delete an instance; resize and delete a managed
 * instance group; attach and detach a backend service's security policies; delete a backend
 * service) are calls of the Compute Engine API itself, made in-process (core's dispatch) with the
 * signed-in principal's own token: the family's routes authorize them, run them as Operations,
 * journal them and fault them exactly as a client's call, and an error is the API's own message.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../core/service.ts';
import { ConsoleError } from './errors.ts';
import type { SignedIn } from './sessions.ts';

/** COMPUTE_API is where the compute family's methods live (its canonical prefix). */
const COMPUTE_API = '/compute/v1';

/** ApiOperation is the Operation an action started, as the API answered it. */
export type ApiOperation = Readonly<Record<string, unknown>>;

/** ComputeActions carries out the console's compute actions through the compute API. */
export class ComputeActions {
  constructor(private readonly dispatch: ServiceContext['dispatch']) {}

  /**
   * call sends one API method (`path` is the resource path and method, `projects/p/zones/z/instances/vm/stop`)
   * as the request's principal; the API's Operation is the answer, its error a ConsoleError with the API's status and message.
   */
  async call(signedIn: SignedIn, request: FastifyRequest, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<ApiOperation> {
    if (this.dispatch === undefined) throw new ConsoleError(503, 'This server runs the console without the compute API: it has no compute actions.');
    const authorization = signedIn.bearer ? (request.headers.authorization ?? '') : `Bearer ${signedIn.session.token}`;
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    // The Operation's links point where the page is.
    if (request.headers.host !== undefined) headers['host'] = request.headers.host;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await this.dispatch({ method, url: `${COMPUTE_API}/${path}`, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      parsed = undefined;
    }
    if (answer.statusCode >= 400 || typeof parsed !== 'object' || parsed === null) {
      const message = (parsed as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new ConsoleError(
        answer.statusCode >= 400 ? answer.statusCode : 502,
        typeof message === 'string' && message !== '' ? message : `The Compute Engine API answered ${answer.statusCode}.`,
      );
    }
    return parsed as ApiOperation;
  }
}
