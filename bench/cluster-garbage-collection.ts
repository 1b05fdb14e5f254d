// bench/cluster-garbage-collection.ts measures the garbage collector (issue 38): one owner
// ConfigMap with 1,000 dependent ConfigMaps (ownerReferences by uid) on the built fogbank with the
// SQLite store; the time from the owner's background DELETE to the last dependent gone (polled),
// against what a test does without a collector in the same run: one deletecollection of the same
// 1,000 by label. A fresh process and data directory each round.
// Run alone: node --import tsx bench/cluster-garbage-collection.ts [--rounds N] [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtMost, runAlone } from './lib/report.ts';

const TOKEN = 'bench';
const NS = '/api/v1/namespaces/default/configmaps';
const DEPENDENTS = 1000;
const CONCURRENCY = 16;

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { items?: unknown[]; metadata?: { uid?: string } } }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : JSON.parse(text) };
}

/** family writes the owner and its dependents (labelled, so a deletecollection can find them too). */
async function family(base: string, count: number): Promise<void> {
  const owner = await call(base, 'POST', NS, { metadata: { name: 'owner' } });
  if (owner.status !== 201) throw new Error(`owner create answered ${owner.status}`);
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata?.uid, controller: true, blockOwnerDeletion: true };
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const created = await call(base, 'POST', NS, { metadata: { name: `dependent-${i}`, labels: { family: 'owner' }, ownerReferences: [ref] } });
        if (created.status !== 201) throw new Error(`dependent create answered ${created.status}`);
      }
    }),
  );
}

async function remaining(base: string): Promise<number> {
  return (await call(base, 'GET', `${NS}?labelSelector=family%3Downer&limit=1`)).json.items?.length ?? 0;
}

/** bench times 1,000 dependents garbage-collected against one deletecollection of them. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const count = quick ? 200 : DEPENDENTS;
  const side = (label: string, remove: (base: string) => Promise<void>) => ({
    label,
    measure: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-gc-'));
      const server = await startProcess([main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']);
      try {
        await family(server.url, count);
        const began = performance.now();
        await remove(server.url);
        while ((await remaining(server.url)) > 0) await new Promise((resolve) => setTimeout(resolve, 2));
        return performance.now() - began;
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
  const [collected, collection] = await interleaved(rounds, [
    side('garbage collector', async (base) => {
      const deleted = await call(base, 'DELETE', `${NS}/owner`);
      if (deleted.status !== 200) throw new Error(`owner delete answered ${deleted.status}`);
    }),
    side('deletecollection', async (base) => {
      const deleted = await call(base, 'DELETE', `${NS}?labelSelector=family%3Downer`);
      if (deleted.status !== 200) throw new Error(`deletecollection answered ${deleted.status}`);
    }),
  ]);
  return [
    metricOf({
      metric: `owner DELETE → its ${count} dependents garbage-collected (SQLite)`,
      unit: 'ms',
      fogbank: collected,
      baseline: { label: 'deletecollection', samples: collection },
      goal: ratioAtMost(2, 'deletecollection'),
      note: 'background propagation; the last dependent gone is polled every 2 ms; the baseline deletes the same objects in one request',
    }),
  ];
};

runAlone(import.meta, bench);
