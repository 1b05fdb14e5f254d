import type { PagedSource } from '../shared/list-query.ts';
import type { Clock, Timers } from '../../../lib/clock.ts';
import type { OperationsMode } from '../../../core/config.ts';
import { hexId, uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { RunSingleton } from '../../../core/singletons.ts';
import type { Change, Store, StoredRecord, Subscription, Transaction } from '../../../store/store.ts';
import { notFound } from '../shared/errors.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { BackgroundWork } from './background-work.ts';
import { OPERATIONS_KIND, operationKey, operationPath, type OperationWork, type StoredOperation } from './operation.ts';
import { newOperationName } from './operation-names.ts';
import { OperationRetention } from './operation-retention.ts';
import { type Executor, OperationRunner, type StartHook, WorkFailure } from './operation-runner.ts';
import { INJECTED_FAILURE_ACTION, injectedOperationError } from './injected-failure.ts';
import { operationForRequestId, REQUEST_IDS_KIND, requestIdKey, type RequestIdRef } from './request-id.ts';

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

/**
 * OperationService owns every compute Operation: it creates them, moves them through
 * PENDING → RUNNING → DONE (running their work through registered executors), answers wait
 * calls as soon as they are DONE, honours requestId idempotency, resumes unfinished work after
 * a restart, and forgets completed Operations after the retention period.
 */
export class OperationService {
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #background = new BackgroundWork();
  readonly #runner: OperationRunner;
  readonly #retention: OperationRetention;
  #subscription: Subscription | undefined;
  #adopter: NodeJS.Timeout | undefined;

  constructor(readonly options: OperationServiceOptions) {
    const holder = options.store.leases.shared ? `replica-${hexId(options.ids, 8)}` : 'this-process';
    this.#runner = new OperationRunner(options, this.#background, holder);
    this.#retention = new OperationRetention(options, this.#background);
  }

  /** register names the executor for one kind of work (`instanceTemplates.insert`). */
  register(action: string, executor: Executor): void {
    this.#runner.register(action, executor);
  }

  /** registerStart names what a realistic Operation of `action` does to its target as it starts RUNNING. */
  registerStart(action: string, hook: StartHook): void {
    this.#runner.registerStart(action, hook);
  }

  /** open attaches to the change feed (for wait), resumes unfinished Operations and runs the retention sweep (on the replica elected for it). */
  async open(): Promise<void> {
    const { store } = this.options;
    await this.#follow();
    // One read of every Operation serves both a first sweep here and the resumption of unfinished ones.
    const all = await store.list<StoredOperation>(OPERATIONS_KIND);
    await this.#retention.start(all);
    const cutoff = this.#retention.cutoff();
    this.#retention.recall(all.filter((r) => r.value.status === 'DONE' && (r.value.endTime ?? 0) >= cutoff));
    for (const record of all) {
      if (record.value.status !== 'DONE') this.#background.track(this.#runner.drive(record.value));
    }
    // Replicas sharing the store adopt the unfinished Operations of one that died (its leases lapse).
    if (store.leases.shared) {
      this.#adopter = setInterval(() => void this.#runner.adopt().catch(() => undefined), this.#runner.leaseMs / 2);
      this.#adopter.unref();
    }
  }

  /** close stops background work and releases every waiting `wait` call. */
  async close(): Promise<void> {
    this.#background.close();
    await this.#retention.stop();
    if (this.#adopter) clearInterval(this.#adopter);
    this.#subscription?.close();
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
    this.#waiters.clear();
    await this.#background.settled();
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
    if (!this.#runner.has(request.work.action)) throw new Error(`no executor for ${request.work.action}`);
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
      if (created.fresh) this.#background.track(this.#runner.drive(op));
      return created.op;
    }
    // Instant: the Operation is born DONE, in the same transaction as its work.
    try {
      return (await record((tx) => this.#runner.runWork(tx, op))).op;
    } catch (error) {
      if (!(error instanceof WorkFailure)) throw error;
      return (await record(async () => this.#runner.failed(op, error.error))).op;
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
      if (op.status === 'DONE' || this.#background.closed) return op;
      await Promise.race([signal, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.waitCapMs ?? 120_000)))]);
      return await this.get(project, scope, name);
    } finally {
      if (timer) clearTimeout(timer);
      set.delete(woken);
      if (set.size === 0) this.#waiters.delete(key);
    }
  }

  /** sweep deletes completed Operations (and their requestId entries) older than the retention period; `records` saves the read when the caller has them. */
  sweep(records?: readonly StoredRecord<StoredOperation>[]): Promise<number> {
    return this.#retention.sweep(records);
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
    if (this.#background.closed) return;
    await this.#follow();
    const all = await this.options.store.list<StoredOperation>(OPERATIONS_KIND);
    this.#retention.forget();
    this.#retention.recall(all.filter((r) => r.value.status === 'DONE'));
    for (const record of all) if (record.value.status !== 'DONE') this.#background.track(this.#runner.drive(record.value));
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
  }

  #onChange(change: Change): void {
    const op = change.value as StoredOperation;
    if (change.type === 'deleted' || op.status === 'DONE') {
      for (const wake of this.#waiters.get(change.key) ?? []) wake();
    }
    if (change.type === 'deleted') this.#retention.deleted(change.key);
    else if (op.status === 'DONE') this.#retention.completed(change.key);
  }

  /** retainedCount is how many completed Operations the count limit is tracking (for tests and diagnostics). */
  get retainedCount(): number {
    return this.#retention.retainedCount;
  }
}
