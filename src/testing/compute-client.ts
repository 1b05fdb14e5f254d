import type { RunningFogbank } from './fogbank.ts';

/** Reply is one HTTP answer, body parsed as JSON. */
export interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * ComputeClient speaks to an in-process fogbank through Fastify's inject (no socket), with a
 * bearer token, the way a client library would. Paths are relative to `/compute/v1/projects/`.
 */
export class ComputeClient {
  constructor(
    private readonly server: RunningFogbank,
    private readonly token: string,
  ) {}

  /** call sends one request. */
  async call(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Reply> {
    const response = await this.server.app.inject({
      method,
      url: `/compute/v1/projects/${path}`,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: response.body === '' ? {} : (JSON.parse(response.body) as Record<string, unknown>) };
  }

  /** ok sends one request and fails unless it answered 200, returning the body. */
  async ok(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Record<string, unknown>> {
    const reply = await this.call(method, path, body);
    if (reply.status !== 200) throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }

  /** done waits for an Operation (from its selfLink) to be DONE and returns it. */
  async done(operation: Record<string, unknown>): Promise<Record<string, unknown>> {
    let current = operation;
    while (current['status'] !== 'DONE') {
      const path = String(current['selfLink']).split('/compute/v1/projects/')[1];
      current = await this.ok('POST', `${path}/wait`);
    }
    return current;
  }
}

/** errorMessage reads `error.message` of a compute error envelope. */
export function errorMessage(reply: Reply): string {
  return String((reply.body['error'] as { message?: unknown } | undefined)?.message);
}
