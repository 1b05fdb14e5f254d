// rules-load-race.fixture.ts is the child process of rules-load-lock.test.ts: several threads load
// libmodsecurity rules sets at the same moment, many times, and the process prints `loaded N` if it
// lived through it (libmodsecurity's parser is not reentrant: unguarded, the process dies with
// "fatal flex scanner internal error--end of buffer missed").
// Usage: node --import tsx rules-load-race.fixture.ts <unlocked|locked|pool> <threads> <loads per thread>
//   unlocked  each thread calls msc_rules_add itself, without the lock (what the engine did before)
//   locked    each thread loads through the binding under the rules-load lock
//   pool      WafPool's own threads, all warmed at once with <loads> configurations
import { createRequire } from 'node:module';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { configText } from './engine-config.ts';

type Mode = 'unlocked' | 'locked' | 'pool';

/** TEXT is a small configuration (CRS 901 and the SQLi file: tens of milliseconds), so that many loads overlap in a second. */
const TEXT = configText({ files: ['REQUEST-942-APPLICATION-ATTACK-SQLI.conf'], paranoia: 1, exclusions: [], parsing: { json: false, contentTypes: [] } });

interface RaceData {
  readonly mode: Mode;
  readonly loads: number;
  readonly start: Int32Array;
  readonly rulesLoadLock: Int32Array;
  readonly text: string;
}

async function main(): Promise<void> {
  const [mode, threadsText = '4', loadsText = '20'] = process.argv.slice(2);
  if (mode !== 'unlocked' && mode !== 'locked' && mode !== 'pool')
    throw new Error('usage: rules-load-race.fixture.ts <unlocked|locked|pool> <threads> <loads>');
  const threads = Number(threadsText);
  const loads = Number(loadsText);
  if (mode === 'pool') {
    // One pool of <threads>, warmed with <loads> configurations all at once: each thread parses each of them.
    const { WafPool } = await import('./waf-pool.ts');
    const pool = new WafPool({ workers: threads });
    await pool.warm(Array.from({ length: loads }, (_, i) => ({ key: `config ${i}`, text: TEXT })));
    await pool.close();
    process.stdout.write(`loaded ${threads * loads}\n`);
    return;
  }
  const { processRulesLoadLock } = await import('./rules-load-lock.ts');
  // Every thread waits on `start` so that their first loads begin together.
  const start = new Int32Array(new SharedArrayBuffer(4));
  const data: RaceData = { mode, loads, start, rulesLoadLock: processRulesLoadLock(), text: TEXT };
  const workers = Array.from({ length: threads }, () => startThread(data));
  await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const counts = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<number>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  await Promise.all(workers.map((worker) => worker.terminate()));
  process.stdout.write(`loaded ${counts.reduce((a, b) => a + b, 0)}\n`);
}

/**
 * startThread starts a racing thread: unlocked, plain JavaScript calling msc_rules_add itself (as
 * the engine did before the lock); locked, this file (Node 20 runs no --import in workers: the
 * thread registers tsx itself).
 */
function startThread(data: RaceData): Worker {
  if (data.mode === 'unlocked') return new Worker(UNLOCKED_THREAD, { eval: true, workerData: data });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`, {
    eval: true,
    workerData: data,
  });
}

async function thread(data: RaceData): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const load = await lockedLoader(data.rulesLoadLock);
  port.postMessage('ready');
  Atomics.wait(data.start, 0, 0);
  for (let i = 0; i < data.loads; i++) load();
  port.postMessage(data.loads);
}

/** UNLOCKED_THREAD parses the text with libmodsecurity's C API directly, without the lock, as many times as asked. */
const UNLOCKED_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const lib = require(${JSON.stringify(createRequire(import.meta.url).resolve('koffi'))}).load('libmodsecurity.so.3');
const create = lib.func('void *msc_create_rules_set()');
const add = lib.func('int msc_rules_add(void *rules, const char *text, _Out_ const char **error)');
const cleanup = lib.func('int msc_rules_cleanup(void *rules)');
parentPort.postMessage('ready');
Atomics.wait(workerData.start, 0, 0);
for (let i = 0; i < workerData.loads; i++) {
  const rules = create();
  const error = [null];
  if (add(rules, workerData.text, error) < 0) throw new Error(String(error[0]));
  cleanup(rules);
}
parentPort.postMessage(workerData.loads);
`;

/** lockedLoader parses TEXT through the engine's binding, holding the rules-load lock. */
async function lockedLoader(lock: Int32Array): Promise<() => void> {
  const { adoptRulesLoadLock, holdingRulesLoadLock } = await import('./rules-load-lock.ts');
  const { openModSecurity } = await import('./modsecurity.ts');
  adoptRulesLoadLock(lock);
  holdingRulesLoadLock(() => openModSecurity());
  return () => holdingRulesLoadLock(() => openModSecurity().load(TEXT)).close();
}

if (isMainThread) await main();
else await thread(workerData as RaceData);
