import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendRaw } from '../testing/raw-http.ts';
import type { ServiceDefinition } from '../core/service.ts';
import { ManualClock } from '../lib/clock.ts';
import { seededIds } from '../lib/ids.ts';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';
import { SERVICES } from './registry.ts';

/**
 * Every family's handlers fail the same way, through core's one error answer (core/error-answer.ts):
 * each family below gets two extra routes of its own, among its real ones, behind its own hooks.
 */

const TOKEN = 'admin-token';
const PROBE = '/__probe';

/** probed adds to a family, after its own routes, one handler that fails after starting its answer and one that fails unexpectedly. */
function probed(service: ServiceDefinition): ServiceDefinition {
  return {
    ...service,
    async register(app, context) {
      const handle = await service.register(app, context);
      app.get(`${baseOf(service)}${PROBE}/started`, async (_request, reply) => {
        // What a watch stream or a streamed download does: headers and part of the body go out first.
        reply.raw.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        reply.raw.write('partial');
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('failed midway');
      });
      app.get(`${baseOf(service)}${PROBE}/unexpected`, async () => {
        throw new Error('a secret detail');
      });
      return handle;
    },
  };
}

const baseOf = (service: ServiceDefinition): string => service.pathPrefixes[0]!.replace(/\/+$/, '');

let server: RunningFogbank;
let port: number;

before(async () => {
  server = await startFogbank({
    ephemeral: true,
    clock: new ManualClock(),
    ids: seededIds('errors'),
    adminToken: TOKEN,
    operations: 'instant',
    bodyLimit: 1024 * 1024,
    services: SERVICES.map(probed),
  });
  port = server.port;
});
after(async () => {
  await server.close();
});

/** HANG_LIMIT_MS is how long a cut-off answer may stay open before the test calls it left hanging. */
const HANG_LIMIT_MS = 5000;

/** readUntilClosed sends `bytes` and reads until the server closes the connection (closed: true) or HANG_LIMIT_MS passes (closed: false). */
function readUntilClosed(bytes: string): Promise<{ readonly raw: string; readonly closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const finish = (closed: boolean): void => {
      clearTimeout(limit);
      socket.destroy();
      resolve({ raw: Buffer.concat(chunks).toString('utf8'), closed });
    };
    const limit = setTimeout(() => finish(false), HANG_LIMIT_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`;

describe("a family handler's failure", () => {
  for (const service of SERVICES) {
    it(`after ${service.name}'s answer started: no second answer, the cut-off one ends the connection, the server carries on`, async () => {
      const { raw, closed } = await readUntilClosed(get(`${baseOf(service)}${PROBE}/started`));
      assert.ok(closed, 'the cut-off answer was left hanging');
      assert.match(raw, /^HTTP\/1\.1 200 /);
      assert.equal(raw.match(/HTTP\/1\.1 /g)?.length, 1, raw);
      assert.equal(raw.slice(raw.indexOf('\r\n\r\n') + 4), 'partial');
      const health = await sendRaw(port, get('/healthz'));
      assert.equal(health.status, 200);
    });

    it(`unexpected in ${service.name}: its dialect's 500, without the stack`, async () => {
      const reply = await sendRaw(port, get(`${baseOf(service)}${PROBE}/unexpected`));
      assert.equal(reply.status, 500);
      assert.equal(service.errorBodyProblem?.(500, JSON.parse(reply.body)), undefined, reply.body);
      assert.doesNotMatch(reply.body, /error-answers\.test|\bat /);
    });
  }
});
