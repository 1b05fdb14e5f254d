import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { advanceFiring } from '../lib/controlled-clock.ts';
import { seededIds } from '../lib/ids.ts';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';

/**
 * Injected faults (core/faults/) answer in each family's own error shape, with the real
 * services' texts, and the generic effects (latency, connection reset) reach every family.
 */

const TOKEN = 'admin-token';

let server: RunningFogbank;

before(async () => {
  server = await startFogbank({ ephemeral: true, ids: seededIds('fault-answers'), adminToken: TOKEN, operations: 'instant' });
});
after(async () => {
  await server.close();
});
beforeEach(() => {
  server.faults.clear();
  server.control.clock.unfreeze();
});

const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown }> => {
  const response = await fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
};

const TEMPLATES = '/compute/v1/projects/demo/global/instanceTemplates';
const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const LABELS = '/gmail/v1/users/me/labels';

describe("an injected status answers in the family's error shape", () => {
  it('compute: 429 is rateLimitExceeded in usageLimits, without status', async () => {
    await server.faults.add({ method: 'compute.instanceTemplates.list', status: 429 });
    const answer = await call(TEMPLATES);
    assert.equal(answer.status, 429);
    assert.deepEqual(answer.body, {
      error: { code: 429, message: 'Rate Limit Exceeded', errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }] },
    });
    assert.equal(answer.headers.get('retry-after'), null);
  });

  it('compute: 403 rateLimitExceeded and 503 backendError', async () => {
    await server.faults.add({ method: 'compute.instanceTemplates.list', status: 403, times: 1 });
    await server.faults.add({ method: 'compute.instanceTemplates.list', status: 503, times: 1 });
    assert.deepEqual((await call(TEMPLATES)).body, {
      error: { code: 403, message: 'Rate Limit Exceeded', errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }] },
    });
    assert.deepEqual((await call(TEMPLATES)).body, {
      error: {
        code: 503,
        message: 'The service is currently unavailable.',
        errors: [{ message: 'The service is currently unavailable.', domain: 'global', reason: 'backendError' }],
      },
    });
    assert.equal((await call(TEMPLATES)).status, 200);
  });

  it('cluster: 429 TooManyRequests with Retry-After and details.retryAfterSeconds', async () => {
    await server.faults.add({ method: 'list clusterroles', status: 429, retryAfter: 2 });
    const answer = await call(CLUSTER_ROLES);
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get('retry-after'), '2');
    assert.deepEqual(answer.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 2 },
      code: 429,
    });
  });

  it('cluster: 500 InternalError, 503 ServiceUnavailable, 504 Timeout', async () => {
    await server.faults.add({ method: 'list clusterroles', status: 500, message: 'etcdserver: request timed out', times: 1 });
    await server.faults.add({ method: 'list clusterroles', status: 503, times: 1 });
    await server.faults.add({ method: 'list clusterroles', status: 504, times: 1 });
    const status = (code: number, reason: string, message: string, details?: unknown): unknown => ({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details === undefined ? {} : { details }),
      code,
    });
    assert.deepEqual(
      (await call(CLUSTER_ROLES)).body,
      status(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out', { causes: [{ message: 'etcdserver: request timed out' }] }),
    );
    assert.deepEqual((await call(CLUSTER_ROLES)).body, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));
    assert.deepEqual((await call(CLUSTER_ROLES)).body, status(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout'));
  });

  it('mail: 429 RESOURCE_EXHAUSTED, 500 backendError INTERNAL, 503 UNAVAILABLE', async () => {
    await server.faults.add({ method: 'gmail.users.labels.list', status: 429, times: 1, retryAfter: 5 });
    await server.faults.add({ method: 'gmail.users.labels.list', status: 500, times: 1 });
    await server.faults.add({ method: 'gmail.users.labels.list', status: 503, times: 1 });
    const limited = await call(LABELS);
    assert.equal(limited.headers.get('retry-after'), '5');
    const text = 'Resource has been exhausted (e.g. check quota).';
    assert.deepEqual(limited.body, {
      error: { code: 429, message: text, errors: [{ message: text, domain: 'global', reason: 'rateLimitExceeded' }], status: 'RESOURCE_EXHAUSTED' },
    });
    assert.deepEqual((await call(LABELS)).body, {
      error: {
        code: 500,
        message: 'Internal error encountered.',
        errors: [{ message: 'Internal error encountered.', domain: 'global', reason: 'backendError' }],
        status: 'INTERNAL',
      },
    });
    assert.deepEqual((await call(LABELS)).body, {
      error: {
        code: 503,
        message: 'The service is currently unavailable.',
        errors: [{ message: 'The service is currently unavailable.', domain: 'global', reason: 'backendError' }],
        status: 'UNAVAILABLE',
      },
    });
  });

  it("mail: a rule's reason and message replace the defaults", async () => {
    const message = 'User-rate limit exceeded.  Retry after 2025-01-01T00:00:10.000Z';
    await server.faults.add({ method: 'gmail.users.labels.list', status: 429, reason: 'userRateLimitExceeded', message });
    assert.deepEqual((await call(LABELS)).body, {
      error: { code: 429, message, errors: [{ message, domain: 'global', reason: 'userRateLimitExceeded' }], status: 'RESOURCE_EXHAUSTED' },
    });
  });

  it('publisher: 500 backendError on an upload', async () => {
    await server.faults.add({ method: 'androidpublisher.internalappsharingartifacts.uploadbundle', status: 500 });
    const answer = await call('/upload/androidpublisher/v3/applications/internalappsharing/com.example.app/artifacts/bundle?uploadType=media', {
      method: 'POST',
      body: 'PK',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(answer.status, 500);
    assert.deepEqual(answer.body, {
      error: {
        code: 500,
        message: 'Internal error encountered.',
        errors: [{ message: 'Internal error encountered.', domain: 'global', reason: 'backendError' }],
        status: 'INTERNAL',
      },
    });
  });

  it('matches the caller by its token email', async () => {
    await server.faults.add({ family: 'mail', principal: 'someone@example.com', status: 500 });
    assert.equal((await call(LABELS)).status, 200);
    await server.faults.add({ family: 'mail', principal: 'admin@fogbank.local', status: 503 });
    assert.equal((await call(LABELS)).status, 503);
  });
});

describe('generic fault effects', () => {
  /** answeredAfter sends `path` on a frozen clock and says whether it was answered before the clock moved, then moves it by `ms`. */
  const onFrozenClock = async (path: string, ms: number): Promise<{ early: boolean; status: number }> => {
    const { clock, timers } = server.control;
    clock.freeze();
    let answered = false;
    const pending = call(path).then((answer) => {
      answered = true;
      return answer;
    });
    // Long enough for an unhindered GET on loopback to be answered many times over.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const early = answered;
    await advanceFiring(clock, timers!, ms);
    return { early, status: (await pending).status };
  };

  it("latency waits on the injected clock's timers, then the request is answered", async () => {
    await server.faults.add({ method: 'gmail.users.labels.list', latencyMs: 60_000, times: 1 });
    assert.deepEqual(await onFrozenClock(LABELS, 60_000), { early: false, status: 200 });
  });

  it('jitter adds at most jitterMs', async () => {
    await server.faults.add({ family: 'compute', latencyMs: 60_000, jitterMs: 5_000, times: 3 });
    for (let i = 0; i < 3; i++) assert.deepEqual(await onFrozenClock(TEMPLATES, 65_000), { early: false, status: 200 });
  });

  it('a reset before the headers ends the connection with no answer', async () => {
    await server.faults.add({ family: 'cluster', reset: 'before-headers', times: 1 });
    await assert.rejects(fetch(`${server.url}${CLUSTER_ROLES}`, { headers: { authorization: `Bearer ${TOKEN}` } }));
    assert.equal((await call(CLUSTER_ROLES)).status, 200);
  });

  it('a reset after the headers ends the connection mid-answer', async () => {
    await server.faults.add({ family: 'cluster', reset: 'after-headers', times: 1 });
    const response = await fetch(`${server.url}${CLUSTER_ROLES}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    await assert.rejects(response.text());
  });
});

describe('an injected operationError: compute accepts the mutation and its Operation ends DONE with the error', () => {
  const insert = (name: string): Promise<{ status: number; headers: Headers; body: unknown }> =>
    call(TEMPLATES, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, properties: { machineType: 'e2-small' } }),
    });

  it('QUOTA_EXCEEDED carries errorDetails[0].quotaInfo and the 403 FORBIDDEN the clients read, and nothing is created', async () => {
    await server.faults.add({
      method: 'compute.instanceTemplates.insert',
      operationError: {
        code: 'QUOTA_EXCEEDED',
        quotaInfo: { metricName: 'compute.googleapis.com/instance_templates', limitName: 'INSTANCE-TEMPLATES-per-project', limit: 100 },
      },
      times: 1,
    });
    const answer = await insert('over-quota');
    assert.equal(answer.status, 200);
    const op = answer.body as Record<string, unknown>;
    assert.equal(op['status'], 'DONE');
    assert.deepEqual(op['error'], {
      errors: [
        {
          code: 'QUOTA_EXCEEDED',
          message: "Quota 'INSTANCE_TEMPLATES' exceeded.  Limit: 100.0 globally.",
          errorDetails: [{ quotaInfo: { metricName: 'compute.googleapis.com/instance_templates', limitName: 'INSTANCE-TEMPLATES-per-project', limit: 100 } }],
        },
      ],
    });
    assert.equal(op['httpErrorStatusCode'], 403);
    assert.equal(op['httpErrorMessage'], 'FORBIDDEN');
    assert.equal((await call(`${TEMPLATES}/over-quota`)).status, 404);
    assert.equal((await insert('over-quota')).status, 200, 'the rule was spent: the next insert works');
    assert.equal((await call(`${TEMPLATES}/over-quota`)).status, 200);
  });

  it("any code, with the rule's message, status and regional dimensions", async () => {
    await server.faults.add({
      family: 'compute',
      method: 'compute.instanceTemplates.insert',
      operationError: {
        code: 'QUOTA_EXCEEDED',
        quotaInfo: { metricName: 'compute.googleapis.com/cpus', limitName: 'CPUS-per-project-region', dimensions: { region: 'us-central1' }, limit: 8 },
      },
      times: 1,
    });
    await server.faults.add({
      method: 'compute.instanceTemplates.insert',
      operationError: { code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'The zone does not have enough resources.', httpStatus: 503 },
      times: 1,
    });
    const quota = (await insert('regional')).body as Record<string, unknown>;
    assert.equal((quota['error'] as { errors: { message: string }[] }).errors[0]!.message, "Quota 'CPUS' exceeded.  Limit: 8.0 in region us-central1.");
    const pool = (await insert('pool')).body as Record<string, unknown>;
    assert.deepEqual(pool['error'], { errors: [{ code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'The zone does not have enough resources.' }] });
    assert.equal(pool['httpErrorStatusCode'], 503);
    assert.equal(pool['httpErrorMessage'], 'SERVICE UNAVAILABLE');
  });
});

describe('injected cluster watch endings', () => {
  it('"gone" ends the watch with the in-stream 410 Expired ERROR event', async () => {
    await server.faults.add({ method: 'watch clusterroles', watch: 'gone', times: 1 });
    const response = await fetch(`${server.url}${CLUSTER_ROLES}?watch=true&resourceVersion=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    const events = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'ERROR');
    const { message, ...status } = events[0]!.object;
    assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410 });
    assert.match(String(message), /^too old resource version: 1 \(2\)$/);
  });

  it('"close" ends the watch early with no event', async () => {
    await server.faults.add({ method: 'watch clusterroles', watch: 'close', times: 1 });
    const response = await fetch(`${server.url}${CLUSTER_ROLES}?watch=true&resourceVersion=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
  });
});

describe('the request journal', () => {
  it('records the fault applied to a request', async () => {
    const rule = await server.faults.add({ method: 'gmail.users.labels.list', status: 503, times: 1 });
    assert.equal((await call(LABELS)).status, 503);
    assert.equal((await call(LABELS)).status, 200);
    const [clean, faulted] = await server.control.requests.read({ family: 'mail', method: 'gmail.users.labels.list', limit: 2 });
    assert.equal(faulted?.status, 503);
    assert.deepEqual(faulted?.fault, rule);
    assert.equal(clean?.status, 200);
    assert.equal(clean?.fault, null);
  });
});
