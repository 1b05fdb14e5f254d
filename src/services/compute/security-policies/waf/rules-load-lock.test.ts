/**
 * libmodsecurity's rule parser is not reentrant: threads that load rules at once end the process.
 * The race is run in a child process (rules-load-race.fixture.ts) so this one survives it: without
 * the lock it crashes or misparses; through the lock, and through the engine pool's warm-up of
 * several threads at once, every load completes. Then the lock's own guarantees: released when a
 * load throws, released when its holder thread is ended inside a load, never blocking the main
 * thread.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { configText } from './engine-config.ts';
import { holdingRulesLoadLock, holdingRulesLoadLockAsync, processRulesLoadLock, releaseRulesLoadLockOf } from './rules-load-lock.ts';
import { FAMILIES } from './signatures.ts';
import { WafPool } from './waf-pool.ts';

const FIXTURE = fileURLToPath(new URL('./rules-load-race.fixture.ts', import.meta.url));

function race(mode: 'unlocked' | 'locked' | 'pool', threads: number, loads: number) {
  return spawnSync(process.execPath, ['--import', 'tsx', FIXTURE, mode, String(threads), String(loads)], { encoding: 'utf8', timeout: 60_000 });
}

test('without the lock, one thread loading rules over and over is fine, and threads loading at once crash the process or misread the rules', () => {
  const alone = race('unlocked', 1, 10);
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal(alone.stdout.trim(), 'loaded 10');
  // The race is near certain with 4 threads of 10 loads each; three tries make a miss practically impossible.
  const outcomes: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const child = race('unlocked', 4, 10);
    if (child.status === 0) {
      outcomes.push('survived');
      continue;
    }
    // A flex fatal error (exit 2), a segfault, or the parser reading another thread's input (a syntax error thrown from a thread).
    assert.doesNotMatch(child.stdout, /loaded/);
    assert.ok(
      child.signal === 'SIGSEGV' || /flex scanner|Rules error|syntax error|Expecting/.test(child.stderr),
      `${child.status} ${child.signal} ${child.stderr}`,
    );
    return;
  }
  assert.fail(`the unguarded race never showed (${outcomes.join(', ')})`);
});

test('with the lock, the same threads load the same rules as many times and the process lives', () => {
  const child = race('locked', 4, 10);
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), 'loaded 40');
});

test("the engine pool's threads warmed all at once load one after another", () => {
  const child = race('pool', 3, 4);
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), 'loaded 12');
});

test('a load that throws releases the lock', async () => {
  const lock = processRulesLoadLock();
  await assert.rejects(
    holdingRulesLoadLockAsync(() => {
      throw new Error('refused');
    }),
    /refused/,
  );
  assert.equal(Atomics.load(lock, 0), 0);
});

test('the main thread never blocks on the lock: it waits asynchronously while a thread holds it', async () => {
  const lock = processRulesLoadLock();
  assert.throws(() => holdingRulesLoadLock(() => 1), /main thread never waits/);
  // A thread takes the lock and keeps it until told to let go.
  const release = new Int32Array(new SharedArrayBuffer(4));
  const holder = new Worker(
    `const { workerData, threadId, parentPort } = require('node:worker_threads');
     const { lock, release } = workerData;
     Atomics.compareExchange(lock, 0, 0, threadId + 1);
     parentPort.postMessage('holding');
     Atomics.wait(release, 0, 0);
     Atomics.store(lock, 0, 0);
     Atomics.notify(lock, 0, 1);`,
    { eval: true, workerData: { lock, release } },
  );
  await new Promise((resolve) => holder.once('message', resolve));
  let ticks = 0;
  const ticking = setInterval(() => ticks++, 1);
  const acquired = holdingRulesLoadLockAsync(() => ticks);
  // The event loop runs (timers fire) while the load waits its turn.
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.ok(ticks > 0);
  Atomics.store(release, 0, 1);
  Atomics.notify(release, 0);
  assert.ok((await acquired) > 0);
  clearInterval(ticking);
  await holder.terminate();
  assert.equal(Atomics.load(lock, 0), 0);
});

test('a thread ended while it holds the lock has it released by whoever saw it end', async () => {
  const lock = processRulesLoadLock();
  const holder = new Worker(
    `const { workerData, threadId, parentPort } = require('node:worker_threads');
     Atomics.compareExchange(workerData.lock, 0, 0, threadId + 1);
     parentPort.postMessage('holding');
     setInterval(() => {}, 1000);`,
    { eval: true, workerData: { lock } },
  );
  const id = holder.threadId;
  await new Promise((resolve) => holder.once('message', resolve));
  await holder.terminate();
  assert.equal(Atomics.load(lock, 0), id + 1);
  assert.equal(releaseRulesLoadLockOf(lock, id), true);
  assert.equal(Atomics.load(lock, 0), 0);
  assert.equal(releaseRulesLoadLockOf(lock, id), false);
});

test('a pool closed while its threads load the Core Rule Set leaves the lock free', async () => {
  const lock = processRulesLoadLock();
  const pool = new WafPool({ workers: 2 });
  const files = FAMILIES.map((family) => family.crsFile).sort();
  const warming = pool.warm([{ key: 'all', text: configText({ files, paranoia: 4, exclusions: [], parsing: { json: false, contentTypes: [] } }) }]);
  // Ended as soon as one of its threads holds the lock, inside the parse.
  while (Atomics.load(lock, 0) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  await pool.close();
  await warming;
  assert.equal(Atomics.load(lock, 0), 0);
  assert.equal(await holdingRulesLoadLockAsync(() => 'loaded after'), 'loaded after');
});
