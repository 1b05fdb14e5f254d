/**
 * The process-wide lock every libmodsecurity rules load holds. ModSecurity's rule parser (a
 * flex scanner and a bison parser with global state) is not reentrant: two threads loading rules
 * at once, even into different rules sets, end the process ("fatal flex scanner internal
 * error--end of buffer missed"; upstream owasp-modsecurity/ModSecurity#2536, #3138, #3215: loading
 * is "not thread safe by design"). So one load runs at a time in the whole process.
 *
 * The lock is one Int32 in a SharedArrayBuffer: 0 when free, else the holder's thread id + 1. The
 * main thread makes it (kept on globalThis, so two copies of this module in one process share it)
 * and hands it to every engine thread at creation (waf-pool.ts); engine threads wait for it with
 * Atomics.wait, the main thread never blocks (holdingRulesLoadLockAsync waits with
 * Atomics.waitAsync). A thread ended while it held the lock (terminate() skips finally blocks)
 * has it released by whoever saw it end (releaseRulesLoadLockOf, from the pool's exit handler).
 */
import { isMainThread, threadId } from 'node:worker_threads';

/** RulesLoadLock is the lock's shared word. */
export type RulesLoadLock = Int32Array;

const FREE = 0;
const GLOBAL_SLOT = Symbol.for('fogbank.waf.rulesLoadLock');

/** waitAsync is Atomics.waitAsync (Node 16+; typed from ES2024, past this project's ES2023 lib). */
const waitAsync = (Atomics as unknown as { waitAsync: AtomicsWaitAsync }).waitAsync;
type AtomicsWaitAsync = (lock: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> };

/** ownerOf is the value a thread's hold writes: its id + 1 (the main thread's id is 0, the free value). */
function ownerOf(id: number): number {
  return id + 1;
}

let adopted: RulesLoadLock | undefined;

/** processRulesLoadLock is this process's lock: made once by the main thread, or the one this engine thread was handed. */
export function processRulesLoadLock(): RulesLoadLock {
  if (adopted !== undefined) return adopted;
  if (!isMainThread) throw new Error('an engine thread loads rules only under the lock its pool handed it (adoptRulesLoadLock)');
  const slot = globalThis as { [GLOBAL_SLOT]?: RulesLoadLock };
  slot[GLOBAL_SLOT] ??= new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  adopted = slot[GLOBAL_SLOT];
  return adopted;
}

/** adoptRulesLoadLock makes `lock` (the main thread's, handed at creation) this worker thread's lock. */
export function adoptRulesLoadLock(lock: RulesLoadLock): void {
  if (!(lock instanceof Int32Array) || !(lock.buffer instanceof SharedArrayBuffer) || lock.length !== 1) {
    throw new Error('the rules-load lock is one Int32 over a SharedArrayBuffer');
  }
  adopted = lock;
}

/** rulesLoadLockHeld says whether this thread holds the lock now (the binding refuses to parse otherwise). */
export function rulesLoadLockHeld(): boolean {
  return Atomics.load(processRulesLoadLock(), 0) === ownerOf(threadId);
}

function release(lock: RulesLoadLock): void {
  if (Atomics.compareExchange(lock, 0, ownerOf(threadId), FREE) !== ownerOf(threadId)) {
    throw new Error('the rules-load lock was released by a thread that did not hold it');
  }
  Atomics.notify(lock, 0, 1);
}

/**
 * holdingRulesLoadLock runs `load` holding the lock, waiting for it (Atomics.wait) while another
 * thread holds it; released however `load` ends. Engine threads only: the main thread must not block.
 */
export function holdingRulesLoadLock<T>(load: () => T): T {
  if (isMainThread) throw new Error('the main thread never waits for the rules-load lock: use holdingRulesLoadLockAsync');
  const lock = processRulesLoadLock();
  const me = ownerOf(threadId);
  for (;;) {
    const holder = Atomics.compareExchange(lock, 0, FREE, me);
    if (holder === FREE) break;
    if (holder === me) throw new Error('the rules-load lock is not reentrant');
    Atomics.wait(lock, 0, holder);
  }
  try {
    return load();
  } finally {
    release(lock);
  }
}

/** holdingRulesLoadLockAsync runs `load` holding the lock, waiting for it without blocking the thread (Atomics.waitAsync): for the main thread. */
export async function holdingRulesLoadLockAsync<T>(load: () => T): Promise<T> {
  const lock = processRulesLoadLock();
  const me = ownerOf(threadId);
  for (;;) {
    const holder = Atomics.compareExchange(lock, 0, FREE, me);
    if (holder === FREE) break;
    if (holder === me) throw new Error('the rules-load lock is not reentrant');
    const waiting = waitAsync(lock, 0, holder);
    if (waiting.async) await waiting.value;
  }
  try {
    return load();
  } finally {
    release(lock);
  }
}

/**
 * releaseRulesLoadLockOf frees the lock if the worker thread `workerThreadId` (ended, or ending)
 * holds it, waking a waiter; true when it did. What the pool calls when one of its threads exits.
 */
export function releaseRulesLoadLockOf(lock: RulesLoadLock, workerThreadId: number): boolean {
  if (Atomics.compareExchange(lock, 0, ownerOf(workerThreadId), FREE) !== ownerOf(workerThreadId)) return false;
  Atomics.notify(lock, 0, 1);
  return true;
}
