import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startFogbank } from '../src/fogbank.ts';
import { BARE_SERVER, ensureBuilt, median, rssMb, startProcess, type Started } from './lib/processes.ts';
import { atMost, type Bench, type BenchMetric, metricOf, ratioAtMost, runAlone } from './lib/report.ts';

/**
 * Issue 13 item 7, measured. (1) RSS of `fogbank start --ephemeral` under sustained inserts
 * (BENCH_SECONDS, default 60; 8 clients, each inserting a template and deleting it again, so the
 * live data stays small and what could grow is what fogbank keeps on its own: Operations, their
 * requestIds, the change feed). The stated bound: in memory, completed Operations are capped at
 * 10,000 and the change feed at 10,000 changes: RSS must stay under RSS_BOUND_MB (default 300),
 * and the live heap after a full GC (the same cycle run in this process) must not grow from round
 * to round (RSS alone also counts garbage the collector has not returned yet).
 * (2) The cost of one list page (`maxResults=1` and `maxResults=500`) at 1,000 and at 25,000
 * templates, with a bare node:http GET measured in the same run as the baseline: a page costs
 * the page, so the 25k/1k ratio stays near 1 (stated here as ≤ 1.5×).
 * Each part runs once (rounds do not repeat them: the fill and the sustained load are the
 * measurement); --quick shortens them (10 s of inserts, 6,000 per heap round: past the 10,000 kept Operations from the first round on, 5,000 templates).
 * Details go to stderr; the metrics are the summary lines.
 */
const TOKEN = 'bench';
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const RSS_BOUND_MB = Number(process.env['RSS_BOUND_MB'] ?? 300);
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

function templateBody(name: string): string {
  return JSON.stringify({
    name,
    description: 'bench template',
    properties: {
      machineType: 'e2-small',
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
      networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
    },
  });
}

async function insert(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}${TEMPLATES}`, { method: 'POST', headers, body: templateBody(name) });
  if (response.status !== 200) throw new Error(`insert ${name}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

async function remove(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}${TEMPLATES}/${name}`, { method: 'DELETE', headers });
  if (response.status !== 200) throw new Error(`delete ${name}: ${response.status}`);
  await response.arrayBuffer();
}

async function sustainedInserts(main: string, SECONDS: number): Promise<BenchMetric[]> {
  const server = await startProcess([main, 'start', '--ephemeral', '--port', '0', '--admin-token', TOKEN, '--operations', 'instant']);
  try {
    const pid = server.child.pid!;
    const deadline = performance.now() + SECONDS * 1000;
    let inserts = 0;
    const samples: { at: number; inserts: number; rss: number }[] = [{ at: 0, inserts: 0, rss: rssMb(pid) }];
    const sampler = setInterval(
      () => samples.push({ at: Math.round((performance.now() - (deadline - SECONDS * 1000)) / 1000), inserts, rss: rssMb(pid) }),
      5000,
    );
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let i = 0; performance.now() < deadline; i++) {
          const name = `t-${client}-${i}`;
          await insert(server.url, name);
          inserts++;
          await remove(server.url, name);
        }
      }),
    );
    clearInterval(sampler);
    samples.push({ at: SECONDS, inserts, rss: rssMb(pid) });
    console.error(`--ephemeral under ${SECONDS} s of sustained inserts (8 clients, insert + delete, instant Operations)`);
    console.error(`${'t (s)'.padStart(6)} ${'inserts'.padStart(9)} ${'RSS MiB'.padStart(8)}`);
    for (const s of samples) console.error(`${String(s.at).padStart(6)} ${String(s.inserts).padStart(9)} ${s.rss.toFixed(1).padStart(8)}`);
    const peak = Math.max(...samples.map((s) => s.rss));
    return [
      metricOf({
        metric: `--ephemeral peak RSS, ${SECONDS} s of sustained inserts (${inserts * 2} Operations)`,
        unit: 'MiB',
        fogbank: [peak],
        goal: atMost(RSS_BOUND_MB, 'MiB'),
      }),
    ];
  } finally {
    await server.stop();
  }
}

/**
 * liveHeap runs the same insert + delete cycle in this process and reads the heap after a full
 * GC every round: RSS includes whatever the collector has not returned yet, the live heap is what
 * fogbank really keeps, and it must not grow from round to round.
 */
async function liveHeap(perRound: number): Promise<BenchMetric[]> {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const server = await startFogbank({ port: 0, ephemeral: true, adminToken: TOKEN, operations: 'instant', logLevel: 'silent' });
  try {
    console.error(`\nlive heap after a full GC, same cycle in process (${perRound} inserts + deletes per round)`);
    const heaps: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < perRound; i++) {
        const name = `h-${round}-${i}`;
        await server.app.inject({ method: 'POST', url: TEMPLATES, headers, payload: templateBody(name) });
        await server.app.inject({ method: 'DELETE', url: `${TEMPLATES}/${name}`, headers });
      }
      for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve));
      gc();
      gc();
      heaps.push(process.memoryUsage().heapUsed / 2 ** 20);
      console.error(`round ${round + 1}: Operations kept ${await server.store.count('compute.operations')}, live heap ${heaps.at(-1)!.toFixed(1)} MiB`);
    }
    const growth = (heaps.at(-1)! - heaps[1]!) / heaps[1]!;
    return [
      metricOf({ metric: 'live heap growth from round 2 to 5 of insert + delete (in process)', unit: '%', fogbank: [growth * 100], goal: atMost(10, '%') }),
    ];
  } finally {
    await server.close();
  }
}

async function latencyMs(url: string, count: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    times.push(performance.now() - began);
  }
  return median(times);
}

async function fill(server: Started, from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < to) await insert(server.url, `t-${String(next++).padStart(6, '0')}`);
    }),
  );
}

async function listPageCost(main: string, large: number): Promise<BenchMetric[]> {
  const bare = await startProcess(BARE_SERVER);
  const server = await startProcess([main, 'start', '--ephemeral', '--port', '0', '--admin-token', TOKEN, '--operations', 'instant']);
  try {
    const rows: { records: number; bare: number; one: number; full: number }[] = [];
    let have = 0;
    for (const records of [1_000, large]) {
      await fill(server, have, records);
      have = records;
      const base = await latencyMs(`${bare.url}${TEMPLATES}?maxResults=1`, 200);
      const one = await latencyMs(`${server.url}${TEMPLATES}?maxResults=1`, 200);
      const full = await latencyMs(`${server.url}${TEMPLATES}?maxResults=500`, 50);
      rows.push({ records, bare: base, one, full });
    }
    console.error('\nlist page cost (median ms per request; bare node:http GET as the baseline)');
    console.error(
      `${'templates'.padStart(9)} ${'bare'.padStart(7)} ${'max=1'.padStart(7)} ${'× bare'.padStart(7)} ${'max=500'.padStart(8)} ${'× bare'.padStart(7)}`,
    );
    for (const r of rows) {
      console.error(
        `${String(r.records).padStart(9)} ${r.bare.toFixed(2).padStart(7)} ${r.one.toFixed(2).padStart(7)} ${(r.one / r.bare).toFixed(1).padStart(7)} ${r.full.toFixed(2).padStart(8)} ${(r.full / r.bare).toFixed(1).padStart(7)}`,
      );
    }
    const [small, big] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const k = `${big.records / 1000}k`;
    return [
      metricOf({
        metric: `list page maxResults=1 at ${k} templates vs at 1k (÷ bare GET)`,
        unit: '× bare',
        fogbank: [big.one / big.bare],
        baseline: { label: '1k templates', samples: [small.one / small.bare] },
        goal: ratioAtMost(1.5, '1k'),
      }),
      metricOf({
        metric: `list page maxResults=500 at ${k} templates vs at 1k (÷ bare GET)`,
        unit: '× bare',
        fogbank: [big.full / big.bare],
        baseline: { label: '1k templates', samples: [small.full / small.bare] },
        goal: ratioAtMost(1.5, '1k'),
      }),
    ];
  } finally {
    await server.stop();
    await bare.stop();
  }
}

/** bench runs the three parts once each. */
export const bench: Bench = async ({ quick }) => {
  const main = ensureBuilt();
  const seconds = Number(process.env['BENCH_SECONDS'] ?? (quick ? 10 : 60));
  return [...(await sustainedInserts(main, seconds)), ...(await liveHeap(quick ? 6000 : 8000)), ...(await listPageCost(main, quick ? 5_000 : 25_000))];
};

runAlone(import.meta, bench);
