import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { FamilyErrors } from '../../src/core/family-errors.ts';
import { registeredRoutes, type RegisteredRoute } from '../../src/core/route-registry.ts';
import { DEFAULT_BODY_LIMIT } from '../../src/core/server.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { ATTACKS, BODY_ATTACKS, FUZZ_TOKEN } from './attacks.ts';
import { batchAnswers, errorDialectProblem, headPartIds } from './dialect.ts';
import { startHealthProbe } from './health-probe.ts';
import { Random } from './random.ts';
import { sendRaw } from '../../src/testing/raw-http.ts';
import { pathOfTarget, targetAsSeen, toBytes, type FuzzRequest } from './request.ts';
import { KNOWN } from './route-params.ts';

/**
 * The bad-input fuzzer: every route every family registered gets malformed, mistyped,
 * prototype-named, deep, oversized, unframed, badly credentialed and badly addressed requests.
 * Whatever comes in, fogbank must answer below 500, in the dialect of the family owning the path,
 * without stalling its event loop for a second, and without a rejected request changing the store.
 *
 * FOGBANK_FUZZ_SEED replays a run (the seed is printed with any failure); FOGBANK_FUZZ_REQUESTS
 * raises the count.
 */

const SEED = Number(process.env['FOGBANK_FUZZ_SEED'] ?? 20261122);
const REQUESTS = Number(process.env['FOGBANK_FUZZ_REQUESTS'] ?? 2500);
/** STALL_LIMIT_MS is the longest the /healthz probe may wait: anything longer means a request held the event loop. */
const STALL_LIMIT_MS = 1000;
/** Failures reported before the run stops: enough to see a pattern, few enough to read. */
const MAX_FAILURES = 15;

let server: RunningFogbank;

before(async () => {
  server = await startFogbank({ host: '127.0.0.1', port: 0, ephemeral: true, operations: 'instant', adminToken: FUZZ_TOKEN, logLevel: 'silent' });
  // Existing state, so requests also reach resources that exist (and "unchanged" is not trivially true).
  const seed = async (path: string, body: unknown): Promise<void> => {
    const response = await server.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${FUZZ_TOKEN}` }, payload: body as object });
    assert.equal(response.statusCode, 200, response.body);
  };
  const project = `/compute/v1/projects/${KNOWN.project}`;
  for (const scope of ['global', `regions/${KNOWN.region}`]) {
    await seed(`${project}/${scope}/instanceTemplates`, { name: KNOWN.template, properties: { machineType: 'e2-small' } });
    await seed(`${project}/${scope}/securityPolicies`, { name: KNOWN.policy, description: 'seeded' });
  }
});
after(async () => {
  await server.close();
});

interface Failure {
  readonly index: number;
  readonly request: FuzzRequest;
  readonly problem: string;
}

/** describeRequest shows a failing request short enough to read, long enough to recognise. */
function describeRequest(request: FuzzRequest): string {
  const clip = (text: string): string => (text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text);
  const body = request.raw ?? request.body;
  return `[${request.attack}] ${request.method} ${clip(request.target)}${body === undefined ? '' : ` body ${clip(JSON.stringify(body.toString('latin1')))}`}`;
}

describe('bad-input fuzzer', () => {
  it(`answers ${REQUESTS} hostile requests over every registered route (seed ${SEED})`, async (t) => {
    const routes: RegisteredRoute[] = registeredRoutes(server.app).filter((route) => route.family !== undefined);
    assert.ok(routes.length > 0, 'no routes were registered');
    const bodyRoutes = routes.filter((route) => route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH');
    const families = new FamilyErrors(SERVICES, DEFAULT_BODY_LIMIT);
    const random = new Random(SEED);
    const attacks = Object.keys(ATTACKS);
    const tally = new Map<string, number>();
    const failures: Failure[] = [];
    const probe = startHealthProbe(server.port);
    let revision = await server.store.currentRevision();
    try {
      for (let index = 0; index < REQUESTS && failures.length < MAX_FAILURES; index++) {
        const attack = random.pick(attacks);
        const pool = BODY_ATTACKS.has(attack) && bodyRoutes.length > 0 && random.chance(0.8) ? bodyRoutes : routes;
        const request = ATTACKS[attack]!({ route: random.pick(pool), random, bodyLimit: DEFAULT_BODY_LIMIT, routes });
        const fail = (problem: string): void => void failures.push({ index, request, problem });
        let reply;
        try {
          reply = await sendRaw(server.port, toBytes(request));
        } catch (error) {
          fail(`no answer: ${(error as Error).message}`);
          continue;
        }
        tally.set(`${attack} ${reply.status}`, (tally.get(`${attack} ${reply.status}`) ?? 0) + 1);
        const after = await server.store.currentRevision();
        if (reply.status >= 500) fail(`answered ${reply.status}: ${reply.body.slice(0, 300)}`);
        const family = families.familyFor(pathOfTarget(targetAsSeen(request)));
        const contentType = reply.headers['content-type'] ?? '';
        if (reply.status >= 400) {
          if (after !== revision) fail(`rejected with ${reply.status} but the store moved from revision ${revision} to ${after}`);
          if (family !== undefined && request.method !== 'HEAD') {
            let body: unknown;
            try {
              body = JSON.parse(reply.body);
            } catch {
              fail(`error body is not JSON (${contentType}): ${reply.body.slice(0, 200)}`);
            }
            const problem = body === undefined ? undefined : errorDialectProblem(family, reply.status, body);
            if (problem !== undefined) fail(`error body not in ${family.name}'s dialect (${problem}): ${reply.body.slice(0, 300)}`);
          }
        } else if (contentType.startsWith('multipart/mixed') && family !== undefined) {
          const heads = headPartIds(request.body?.toString('latin1') ?? '');
          for (const part of batchAnswers(contentType, reply.body)) {
            if (part.contentId !== undefined && heads.has(part.contentId)) continue;
            if (part.status >= 500) fail(`a batch part answered ${part.status}: ${part.body.slice(0, 300)}`);
            else if (part.status >= 400) {
              let body: unknown;
              try {
                body = JSON.parse(part.body);
              } catch {
                fail(`a batch part's error body is not JSON: ${JSON.stringify(part.body.slice(0, 200))}`);
                continue;
              }
              const problem = errorDialectProblem(family, part.status, body);
              if (problem !== undefined) fail(`batch part error not in ${family.name}'s dialect (${problem}): ${part.body.slice(0, 300)}`);
            }
          }
        }
        revision = after;
      }
    } finally {
      const { probes, worstMs } = await probe.stop();
      t.diagnostic(`seed ${SEED}; ${probes} /healthz probes, worst ${Math.round(worstMs)} ms; answers by attack and status: ${[...tally].sort().map(([key, count]) => `${key}×${count}`).join(', ')}`);
      if (worstMs > STALL_LIMIT_MS) failures.push({ index: -1, request: { attack: 'event loop', method: '-', target: '-', headers: [] }, problem: `a /healthz probe waited ${Math.round(worstMs)} ms (limit ${STALL_LIMIT_MS} ms)` });
    }
    const health = await sendRaw(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(health.status, 200, 'fogbank stopped answering');
    assert.deepEqual(
      failures.map((failure) => `#${failure.index} ${describeRequest(failure.request)}\n    ${failure.problem}`),
      [],
      `replay with FOGBANK_FUZZ_SEED=${SEED} FOGBANK_FUZZ_REQUESTS=${REQUESTS}`,
    );
  });
});
