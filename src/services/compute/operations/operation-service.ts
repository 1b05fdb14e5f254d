import type { PagedSource } from '../shared/list-query.ts';
import type { Clock, Timers } from '../../../lib/clock.ts';
import type { OperationsMode } from '../../../core/config.ts';
import { hexId, uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { RunSingleton, Singleton } from '../../../core/singletons.ts';
import { HeldLease } from '../../../store/held-lease.ts';
import type { Change, Store, StoredRecord, Subscription, Transaction } from '../../../store/store.ts';
import { ComputeError, internalError, notFound } from '../shared/errors.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { OPERATIONS_KIND, operationKey, operationPath, type OperationWork, type StoredOperation } from './operation.ts';
import { newOperationName } from './operation-names.ts';
import { INJECTED_FAILURE_ACTION, InjectedOperationFailure, injectedFailure, injectedOperationError } from './injected-failure.ts';
import { operationForRequestId, REQUEST_IDS_KIND, requestIdKey, type RequestIdRef } from './request-id.ts';

/** ExecutorResult is what finished work reports back to its Operation. */
export interface ExecutorResult {
  readonly targetId?: string;
}

/**
 * Executor performs an Operation's work inside the transaction that marks it DONE, so the change
 * and the Operation's completion commit together. Throwing a ComputeError fails the Operation
 * (DONE with `error`) and rolls the work back.
 */
export type Executor = (tx: Transaction, payload: unknown, op: StoredOperation) => Promise<ExecutorResult | void>;

/** StartRequest describes a new Operation. */
export interface StartRequest {
  readonly project: string;
  readonly scope: Scope;
  readonly operationType: string;
  readonly targetPath: string;
  readonly targetId?: string;
  readonly user: string;
  readonly requestId?: string | undefined;
  readonly description?: string;
  readonly work: OperationWork;
}

/** OperationServiceOptions tune timing; the defaults are the realistic ones. */
export interface OperationServiceOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly ids: IdSource;
  readonly mode: OperationsMode;
  /** Time an Operation stays PENDING, then RUNNING, in realistic mode. */
  readonly pendingMs?: number;
  readonly runningMs?: number;
  /** Longest a `wait` call blocks before returning the current state. */
  readonly waitCapMs?: number;
  /** How long completed Operations are kept. */
  readonly retentionMs?: number;
  /**
   * How long a replica's claim on an unfinished Operation lasts without renewal (default 5 s):
   * when a replica sharing the store dies, another finishes its Operations after about this long.
   */
  readonly leaseMs?: number;
  /**
   * How many completed Operations are kept at most (oldest completion forgotten first), on top of
   * the age limit; undefined means no count limit. The memory store sets it: there every kept
   * Operation is heap, and a day of sustained inserts would otherwise grow without bound.
   */
  readonly maxRetained?: number;
  /**
   * singleton runs the retention sweep on one of the replicas sharing the store (core's
   * `context.singleton`); without it (a lone OperationService, as in unit tests) it runs here.
   */
  readonly singleton?: RunSingleton;
}

/** RETENTION_SWEEP_MS is how often the elected replica deletes Operations past their retention. */
const RETENTION_SWEEP_MS = 10 * 60 * 1000;

/** MEMORY_MAX_RETAINED_OPERATIONS is the count limit for completed Operations when the store is in memory (`--ephemeral`). */
export const MEMORY_MAX_RETAINED_OPERATIONS = 10_000;

/** DEFAULT_RETENTION_MS keeps completed Operations for a day. */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * OperationService owns every compute Operation: it creates them, moves them through
 * PENDING → RUNNING → DONE (running their work through registered executors), answers wait
 * calls as soon as they are DONE, honours requestId idempotency, resumes unfinished work after
 * a restart, and forgets completed Operations after the retention period.
 */
export class OperationService {
  readonly #executors = new Map<string, Executor>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #subscription: Subscription | undefined;
  #retention: Singleton | undefined;
  #adopter: NodeJS.Timeout | undefined;
  /** Keys of the Operations this process is driving now. */
  readonly #driving = new Set<string>();
  /** Who this process is among the replicas sharing the store (only they need telling apart). */
  readonly #holder: string;
  /** Keys of completed Operations in completion order, for the count limit (a queue: `#doneHead` is its front). */
  #doneQueue: string[] = [];
  #doneHead = 0;
  readonly #doneKeys = new Set<string>();
  #evicting = false;
  #closed = false;
  /** Resolves when close() is called, so work sleeping on a timer does not hold shutdown open. */
  #closing: () => void = () => undefined;
  readonly #closedSignal = new Promise<void>((resolve) => (this.#closing = resolve));

  constructor(readonly options: OperationServiceOptions) {
    this.#holder = options.store.leases.shared ? `replica-${hexId(options.ids, 8)}` : 'this-process';
    // An injected operationError replaces the work: the Operation ends DONE with that error (injected-failure.ts).
    this.#executors.set(INJECTED_FAILURE_ACTION, async (_tx, payload) => {
      throw injectedFailure(payload);
    });
  }

  /** register names the executor for one kind of work (`instanceTemplates.insert`). */
  register(action: string, executor: Executor): void {
    this.#executors.set(action, executor);
  }

  /** open attaches to the change feed (for wait), resumes unfinished Operations and runs the retention sweep (on the replica elected for it). */
  async open(): Promise<void> {
    const { store } = this.options;
    await this.#follow();
    // One read of every Operation serves both a first sweep here and the resumption of unfinished ones.
    const all = await store.list<StoredOperation>(OPERATIONS_KIND);
    let unswept: readonly StoredRecord<StoredOperation>[] | undefined = all;
    this.#retention = await (this.options.singleton ?? runHere)('compute/operation-retention', () => {
      const records = unswept;
      unswept = undefined;
      return this.#sweepPeriodically(records);
    });
    // A replica elected later reads afresh.
    unswept = undefined;
    const cutoff = this.options.clock.now() - (this.options.retentionMs ?? DEFAULT_RETENTION_MS);
    const done = all
      .filter((r) => r.value.status === 'DONE' && (r.value.endTime ?? 0) >= cutoff)
      .sort((a, b) => (a.value.endTime ?? 0) - (b.value.endTime ?? 0));
    for (const record of done) this.#completed(record.key);
    for (const record of all) {
      if (record.value.status !== 'DONE') this.#track(this.#drive(record.value));
    }
    // Replicas sharing the store adopt the unfinished Operations of one that died (its leases lapse).
    if (store.leases.shared) {
      this.#adopter = setInterval(() => void this.#adopt().catch(() => undefined), this.#leaseMs / 2);
      this.#adopter.unref();
    }
  }

  /** close stops background work and releases every waiting `wait` call. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing();
    await this.#retention?.stop();
    if (this.#adopter) clearInterval(this.#adopter);
    this.#subscription?.close();
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
    this.#waiters.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** byRequestId returns the Operation an earlier request with this requestId started, if any. */
  async byRequestId(project: string, scope: Scope, requestId: string | undefined): Promise<StoredOperation | undefined> {
    return requestId === undefined ? undefined : operationForRequestId(this.options.store, requestIdKey(project, scope, requestId));
  }

  /**
   * start creates an Operation for `request.work`. In instant mode the work runs before this
   * returns (the result is DONE); otherwise it is scheduled and the PENDING Operation returned.
   * A repeated requestId returns the earlier Operation and does no work.
   */
  async start(request: StartRequest): Promise<StoredOperation> {
    const { store, clock, ids } = this.options;
    if (!this.#executors.has(request.work.action)) throw new Error(`no executor for ${request.work.action}`);
    const injected = injectedOperationError();
    const now = clock.now();
    const op: StoredOperation = {
      id: uint64Id(ids),
      name: newOperationName(now, ids),
      project: request.project,
      scope: request.scope,
      operationType: request.operationType,
      targetPath: request.targetPath,
      ...(request.targetId === undefined ? {} : { targetId: request.targetId }),
      status: 'PENDING',
      progress: 0,
      user: request.user,
      insertTime: now,
      ...(request.requestId === undefined ? {} : { clientOperationId: request.requestId }),
      ...(request.description === undefined ? {} : { description: request.description }),
      work: injected === undefined ? request.work : { action: INJECTED_FAILURE_ACTION, payload: injected },
    };
    const key = operationKey(op.project, op.scope, op.name);
    const requestKey = request.requestId === undefined ? undefined : requestIdKey(op.project, op.scope, request.requestId);
    const instant = this.options.mode === 'instant';
    // Writes the Operation (and its requestId entry) unless an earlier request with the same id did.
    const record = (final: (tx: Transaction) => Promise<StoredOperation>) =>
      store.transact(async (tx) => {
        if (requestKey !== undefined) {
          const earlier = await operationForRequestId(tx, requestKey);
          if (earlier) return { op: earlier, fresh: false };
          await tx.put<RequestIdRef>(REQUEST_IDS_KIND, requestKey, { operationKey: key, insertTime: now });
        }
        const stored = await final(tx);
        await tx.put(OPERATIONS_KIND, key, stored, { expectRevision: 0 });
        return { op: stored, fresh: true };
      });
    if (!instant) {
      const created = await record(async () => op);
      if (created.fresh) this.#track(this.#drive(op));
      return created.op;
    }
    // Instant: the Operation is born DONE, in the same transaction as its work.
    try {
      return (await record((tx) => this.#runWork(tx, op))).op;
    } catch (error) {
      if (!(error instanceof WorkFailure)) throw error;
      return (await record(async () => this.#failed(op, error.error))).op;
    }
  }

  /** get reads one Operation or throws the real 404. */
  async get(project: string, scope: Scope, name: string): Promise<StoredOperation> {
    const record = await this.options.store.get<StoredOperation>(OPERATIONS_KIND, operationKey(project, scope, name));
    if (record === undefined) throw notFound(operationPath({ project, scope, name }));
    return record.value;
  }

  /** list returns the Operations of one scope, or of every scope when `scope` is undefined, by name. */
  async list(project: string, scope?: Scope): Promise<StoredOperation[]> {
    return (await this.source(project, scope)(undefined, undefined)).map((record) => record.value);
  }

  /** source reads one scope's Operations, or every scope's when `scope` is undefined, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredOperation> {
    const prefix = scope === undefined ? `${project}/` : `${project}/${scopePath(scope)}/`;
    return (after, limit) =>
      this.options.store.list<StoredOperation>(OPERATIONS_KIND, {
        prefix,
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
      });
  }

  /** remove deletes an Operation record (the work, if unfinished, is abandoned). */
  async remove(project: string, scope: Scope, name: string): Promise<void> {
    const key = operationKey(project, scope, name);
    const removed = await this.options.store.transact((tx) => tx.delete(OPERATIONS_KIND, key));
    if (removed === undefined) throw notFound(operationPath({ project, scope, name }));
  }

  /** wait returns the Operation once it is DONE, or its current state after the wait cap. */
  async wait(project: string, scope: Scope, name: string): Promise<StoredOperation> {
    const key = operationKey(project, scope, name);
    let woken: () => void = () => undefined;
    const signal = new Promise<void>((resolve) => (woken = resolve));
    let set = this.#waiters.get(key);
    if (set === undefined) {
      set = new Set();
      this.#waiters.set(key, set);
    }
    set.add(woken);
    let timer: NodeJS.Timeout | undefined;
    try {
      const op = await this.get(project, scope, name);
      if (op.status === 'DONE' || this.#closed) return op;
      await Promise.race([signal, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.waitCapMs ?? 120_000)))]);
      return await this.get(project, scope, name);
    } finally {
      if (timer) clearTimeout(timer);
      set.delete(woken);
      if (set.size === 0) this.#waiters.delete(key);
    }
  }

  /** sweep deletes completed Operations (and their requestId entries) older than the retention period; `records` saves the read when the caller has them. */
  async sweep(records?: readonly StoredRecord<StoredOperation>[]): Promise<number> {
    const { store, clock } = this.options;
    const cutoff = clock.now() - (this.options.retentionMs ?? DEFAULT_RETENTION_MS);
    const expired = (records ?? (await store.list<StoredOperation>(OPERATIONS_KIND))).filter(
      (r) => r.value.status === 'DONE' && (r.value.endTime ?? 0) < cutoff,
    );
    if (expired.length === 0) return 0;
    await store.transact(async (tx) => {
      for (const record of expired) {
        await tx.delete(OPERATIONS_KIND, record.key, { expectRevision: record.revision }).catch(() => undefined);
        const op = record.value;
        if (op.clientOperationId !== undefined) await tx.delete(REQUEST_IDS_KIND, requestIdKey(op.project, op.scope, op.clientOperationId));
      }
    });
    return expired.length;
  }

  /** sweepPeriodically sweeps now (a new leader may take over from one that died) and every RETENTION_SWEEP_MS until stopped. */
  async #sweepPeriodically(records?: readonly StoredRecord<StoredOperation>[]): Promise<{ stop(): Promise<void> }> {
    let sweeping: Promise<unknown> = this.sweep(records).catch(() => undefined);
    await sweeping;
    const timer = setInterval(() => {
      sweeping = sweeping.then(() => this.sweep()).catch(() => undefined);
    }, RETENTION_SWEEP_MS);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await sweeping;
      },
    };
  }

  /** follow attaches to the change feed from now; when the store's state is replaced (a snapshot restored, a reset) it attaches again and re-reads. */
  async #follow(): Promise<void> {
    const { store } = this.options;
    this.#subscription = await store.subscribe(await store.currentRevision(), (change) => this.#onChange(change), {
      kinds: [OPERATIONS_KIND],
      onReset: () => void this.#afterReset().catch(() => undefined),
    });
  }

  /**
   * afterReset follows a replaced state: what this process remembered of completed Operations is
   * forgotten and read again, unfinished ones in the new state are driven, and every waiter
   * looks again (its Operation may be done, or gone).
   */
  async #afterReset(): Promise<void> {
    if (this.#closed) return;
    await this.#follow();
    const all = await this.options.store.list<StoredOperation>(OPERATIONS_KIND);
    this.#doneQueue = [];
    this.#doneHead = 0;
    this.#doneKeys.clear();
    for (const record of all.filter((r) => r.value.status === 'DONE').sort((a, b) => (a.value.endTime ?? 0) - (b.value.endTime ?? 0)))
      this.#completed(record.key);
    for (const record of all) if (record.value.status !== 'DONE') this.#track(this.#drive(record.value));
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
  }

  #onChange(change: Change): void {
    const op = change.value as StoredOperation;
    if (change.type === 'deleted' || op.status === 'DONE') {
      for (const wake of this.#waiters.get(change.key) ?? []) wake();
    }
    if (change.type === 'deleted') this.#doneKeys.delete(change.key);
    else if (op.status === 'DONE') this.#completed(change.key);
  }

  /** retainedCount is how many completed Operations the count limit is tracking (for tests and diagnostics). */
  get retainedCount(): number {
    return this.#doneKeys.size;
  }

  /** #completed records a completion and, past the count limit, forgets the oldest completions. */
  #completed(key: string): void {
    if (this.#doneKeys.has(key)) return;
    this.#doneKeys.add(key);
    this.#doneQueue.push(key);
    const max = this.options.maxRetained;
    // Evict in batches (a tenth of the limit at a time) so one insert does not pay one delete.
    if (max !== undefined && this.#doneKeys.size > max + Math.max(1, Math.floor(max / 10)) && !this.#evicting && !this.#closed) {
      this.#track(this.#evictOldest(max));
    }
  }

  async #evictOldest(max: number): Promise<void> {
    this.#evicting = true;
    try {
      const victims: string[] = [];
      while (this.#doneKeys.size - victims.length > max && this.#doneHead < this.#doneQueue.length) {
        const key = this.#doneQueue[this.#doneHead++]!;
        if (this.#doneKeys.has(key)) victims.push(key);
      }
      if (this.#doneHead > 1024 && this.#doneHead * 2 > this.#doneQueue.length) {
        this.#doneQueue = this.#doneQueue.slice(this.#doneHead);
        this.#doneHead = 0;
      }
      await this.options.store.transact(async (tx) => {
        for (const key of victims) {
          const removed = await tx.delete<StoredOperation>(OPERATIONS_KIND, key);
          const op = removed?.value;
          if (op?.clientOperationId !== undefined) await tx.delete(REQUEST_IDS_KIND, requestIdKey(op.project, op.scope, op.clientOperationId));
        }
      });
      for (const key of victims) this.#doneKeys.delete(key);
    } finally {
      this.#evicting = false;
    }
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  get #leaseMs(): number {
    return this.options.leaseMs ?? 5_000;
  }

  /**
   * drive advances an Operation while holding its lease, so exactly one replica works on it;
   * when another replica holds the lease (it is driving it), this one leaves it alone.
   */
  async #drive(op: StoredOperation): Promise<void> {
    const key = operationKey(op.project, op.scope, op.name);
    if (this.#driving.has(key) || this.#closed) return;
    this.#driving.add(key);
    let lease: HeldLease | undefined;
    try {
      lease = await HeldLease.take(this.options.store.leases, `${OPERATIONS_KIND}/${key}`, this.#holder, this.#leaseMs);
      if (lease !== undefined) await this.#advance(op, lease);
    } finally {
      await lease?.release();
      this.#driving.delete(key);
    }
  }

  /** adopt drives every unfinished Operation that no live replica holds (its driver died). */
  async #adopt(): Promise<void> {
    const all = await this.options.store.list<StoredOperation>(OPERATIONS_KIND);
    for (const record of all) {
      if (this.#closed) return;
      if (record.value.status !== 'DONE' && !this.#driving.has(record.key)) this.#track(this.#drive(record.value));
    }
  }

  /** advance walks a realistic Operation through its states from wherever it is, while `lease` holds. */
  async #advance(op: StoredOperation, lease: HeldLease): Promise<void> {
    const { timers } = this.options;
    if (op.status === 'PENDING') {
      await Promise.race([timers.delay(this.options.pendingMs ?? 100), this.#closedSignal]);
      if (this.#closed || lease.lost) return;
      const running = await this.#update(op, (current) =>
        current.status === 'PENDING' ? { ...current, status: 'RUNNING', startTime: this.options.clock.now() } : undefined,
      );
      if (running === undefined) return;
      op = running;
    }
    await Promise.race([timers.delay(this.options.runningMs ?? 300), this.#closedSignal]);
    if (this.#closed || lease.lost) return;
    await this.#finish(op);
  }

  /** update rewrites an Operation if `change` returns a new value; undefined when gone or unchanged. */
  async #update(op: StoredOperation, change: (current: StoredOperation) => StoredOperation | undefined): Promise<StoredOperation | undefined> {
    const key = operationKey(op.project, op.scope, op.name);
    return this.options.store.transact(async (tx) => {
      const current = await tx.get<StoredOperation>(OPERATIONS_KIND, key);
      if (current === undefined) return undefined;
      const next = change(current.value);
      if (next === undefined) return undefined;
      await tx.put(OPERATIONS_KIND, key, next, { expectRevision: current.revision });
      return next;
    });
  }

  /** runWork runs an Operation's work inside `tx` and returns it DONE; a failing work throws WorkFailure. */
  async #runWork(tx: Transaction, op: StoredOperation): Promise<StoredOperation> {
    const work = op.work;
    let result: ExecutorResult | void = undefined;
    if (work !== undefined) {
      const executor = this.#executors.get(work.action);
      try {
        if (executor === undefined) throw internalError(`Internal error: no executor for ${work.action}.`);
        result = await executor(tx, work.payload, op);
      } catch (error) {
        throw new WorkFailure(error instanceof ComputeError ? error : internalError('Internal error. Please try again or contact Google Support.'));
      }
    }
    return { ...this.#done(op), ...(result?.targetId === undefined ? {} : { targetId: result.targetId }) };
  }

  /** done is an Operation moved to DONE now, its work dropped (it ran, or was abandoned). */
  #done(op: StoredOperation): StoredOperation {
    const now = this.options.clock.now();
    const { work: _finished, ...rest } = op;
    return { ...rest, status: 'DONE', progress: 100, startTime: op.startTime ?? now, endTime: now };
  }

  /** failed is the DONE form of an Operation whose work failed. */
  #failed(op: StoredOperation, failure: ComputeError): StoredOperation {
    return {
      ...this.#done(op),
      errors: [
        {
          code: failure.operationCode,
          ...(failure.location === undefined ? {} : { location: failure.location }),
          message: failure.message,
          ...(failure instanceof InjectedOperationFailure && failure.errorDetails !== undefined ? { errorDetails: failure.errorDetails } : {}),
        },
      ],
      httpErrorStatusCode: failure.httpStatus,
      httpErrorMessage: failure.httpErrorMessage,
    };
  }

  /** finish runs the work of a realistic Operation and marks it DONE, with `error` when the work failed. */
  async #finish(op: StoredOperation): Promise<StoredOperation> {
    const key = operationKey(op.project, op.scope, op.name);
    try {
      const done = await this.options.store.transact(async (tx) => {
        const current = await tx.get<StoredOperation>(OPERATIONS_KIND, key);
        if (current === undefined || current.value.status === 'DONE') return current?.value;
        const next = await this.#runWork(tx, current.value);
        await tx.put(OPERATIONS_KIND, key, next, { expectRevision: current.revision });
        return next;
      });
      return done ?? op;
    } catch (error) {
      if (!(error instanceof WorkFailure)) throw error;
      const failed = await this.#update(op, (current) => (current.status === 'DONE' ? undefined : this.#failed(current, error.error)));
      return failed ?? (await this.get(op.project, op.scope, op.name));
    }
  }
}

/** runHere runs singleton work in this process without an election (a lone OperationService). */
const runHere: RunSingleton = async (_name, start) => {
  const work = await start();
  let running = true;
  return {
    get running() {
      return running;
    },
    stop: async () => {
      running = false;
      await work.stop();
    },
  };
};

/** WorkFailure carries a failed work's error out of the transaction it rolled back. */
class WorkFailure extends Error {
  constructor(readonly error: ComputeError) {
    super(error.message);
  }
}
