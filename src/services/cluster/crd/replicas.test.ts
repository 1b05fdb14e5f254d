import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FogbankServer } from '../../../core/server.ts';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { MemoryStore, type StoredRecord } from '../../../store/index.ts';
import { startFogbank } from '../../../testing/fogbank.ts';
import { createClusterService } from '../index.ts';
import { ADMIN_TOKEN } from '../../../testing/cluster-harness.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const THINGS = '/apis/example.net/v1/things';

const THING_CRD = {
  metadata: { name: 'things.example.net' },
  spec: {
    group: 'example.net',
    scope: 'Cluster',
    names: { plural: 'things', kind: 'Thing' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      },
    ],
  },
};

/** Two fogbanks on one store, as two replicas on one PostgreSQL database: each serves what the other's writes install. */
describe('custom resources follow the store: another replica, a reset, a restored state', () => {
  const store = new MemoryStore({});
  let a: { app: FogbankServer; close(): Promise<void> };
  let b: { app: FogbankServer; close(): Promise<void> };
  const start = () =>
    startFogbank({
      ephemeral: true,
      store,
      clock: new ManualClock(new Date('2025-01-01T00:00:00Z')),
      ids: seededIds(`replica-${Math.random()}`),
      adminToken: ADMIN_TOKEN,
      operations: 'instant',
      services: [createClusterService({ bootstrapPolicy: false })],
    });
  const call = async (server: { app: FogbankServer }, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const reply = await server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: reply.statusCode, body: JSON.parse(reply.body) };
  };
  /** eventually retries a read until it answers `status` (a replica hears the change feed asynchronously). */
  const eventually = async (server: { app: FogbankServer }, url: string, status: number) => {
    let last = 0;
    for (let attempt = 0; attempt < 100; attempt++) {
      last = (await call(server, 'GET', url)).status;
      if (last === status) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(last, status, url);
  };
  before(async () => {
    a = await start();
    b = await start();
    // Both replicas' cluster runtimes running before the CRD is written.
    assert.equal((await call(a, 'GET', CRDS)).status, 200);
    assert.equal((await call(b, 'GET', CRDS)).status, 200);
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it('serves on one replica a CRD created through the other, and its instances', async () => {
    assert.equal((await call(a, 'POST', CRDS, THING_CRD)).status, 201);
    await eventually(b, THINGS, 200);
    const created = await call(b, 'POST', THINGS, { apiVersion: 'example.net/v1', kind: 'Thing', metadata: { name: 't1' }, spec: { size: 3 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await call(a, 'GET', `${THINGS}/t1`)).body.spec.size, 3);
  });

  it('serves nothing once the state is replaced without the CRD, and serves it again once a state holding it is restored', async () => {
    const saved: StoredRecord[] = [];
    await store.exportState(async (_revision, records) => {
      for await (const record of records()) saved.push(record);
    });
    const revision = await store.currentRevision();
    await store.replaceState((async function* () {})(), revision);
    await eventually(a, THINGS, 404);
    await eventually(b, THINGS, 404);
    await store.replaceState(
      (async function* () {
        yield* saved;
      })(),
      revision,
    );
    await eventually(a, `${THINGS}/t1`, 200);
    await eventually(b, `${THINGS}/t1`, 200);
  });
});
