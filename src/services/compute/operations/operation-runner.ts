import type { Clock, Timers } from '../../../lib/clock.ts';
import { HeldLease } from '../../../store/held-lease.ts';
import type { Store, Transaction } from '../../../store/store.ts';
import { ComputeError, internalError, notFound } from '../shared/errors.ts';
import type { BackgroundWork } from './background-work.ts';
import { INJECTED_FAILURE_ACTION, InjectedOperationFailure, injectedFailure } from './injected-failure.ts';
import { OPERATIONS_KIND, operationKey, operationPath, type StoredOperation } from './operation.ts';

/** ExecutorResult is what finished work reports back to its Operation. */
export interface ExecutorResult {
  readonly targetId?: string;
}

/**
 * Executor performs an Operation's work inside the transaction that marks it DONE, so the change
 * and the Operation's completion commit together. Throwing a ComputeError fails the Operation
 * (DONE with `error`) and rolls the work back.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an executor with no result is an async function that returns nothing
export type Executor = (tx: Transaction, payload: unknown, op: StoredOperation) => Promise<ExecutorResult | void>;

/** StartHook changes what an Operation works on as it starts RUNNING, inside the transaction that marks it so (an instance shows STAGING). */
export type StartHook = (tx: Transaction, payload: unknown) => Promise<void>;

/** RunnerOptions are the Operation service's options the runner reads. */
export interface RunnerOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Time an Operation stays PENDING, then RUNNING, in realistic mode. */
  readonly pendingMs?: number;
  readonly runningMs?: number;
  /** How long a replica's claim on an unfinished Operation lasts without renewal (default 5 s). */
  readonly leaseMs?: number;
}

/**
 * OperationRunner runs Operations' work: through the executor registered for its action, in the
 * transaction that marks the Operation DONE (with `error` when the work fails), and, for a
 * realistic Operation, after walking it PENDING → RUNNING → DONE while holding its lease, so
 * exactly one of the replicas sharing the store drives it.
 */
export class OperationRunner {
  readonly #executors = new Map<string, Executor>();
  readonly #startHooks = new Map<string, StartHook>();
  /** Keys of the Operations this process is driving now. */
  readonly #driving = new Set<string>();

  constructor(
    private readonly options: RunnerOptions,
    private readonly background: BackgroundWork,
    /** Who this process is among the replicas sharing the store (only they need telling apart). */
    private readonly holder: string,
  ) {
    // An injected operationError replaces the work: the Operation ends DONE with that error (injected-failure.ts).
    this.#executors.set(INJECTED_FAILURE_ACTION, async (_tx, payload) => {
      throw injectedFailure(payload);
    });
  }

  /** register names the executor for one kind of work (`instanceTemplates.insert`). */
  register(action: string, executor: Executor): void {
    this.#executors.set(action, executor);
  }

  /** registerStart names what a realistic Operation of one kind of work does as it goes RUNNING (instant ones skip it). */
  registerStart(action: string, hook: StartHook): void {
    this.#startHooks.set(action, hook);
  }

  /** has is true when an executor is registered for `action`. */
  has(action: string): boolean {
    return this.#executors.has(action);
  }

  get leaseMs(): number {
    return this.options.leaseMs ?? 5_000;
  }

  /**
   * drive advances an Operation while holding its lease, so exactly one replica works on it;
   * when another replica holds the lease (it is driving it), this one leaves it alone.
   */
  async drive(op: StoredOperation): Promise<void> {
    const key = operationKey(op.project, op.scope, op.name);
    if (this.#driving.has(key) || this.background.closed) return;
    this.#driving.add(key);
    let lease: HeldLease | undefined;
    try {
      lease = await HeldLease.take(this.options.store.leases, `${OPERATIONS_KIND}/${key}`, this.holder, this.leaseMs);
      if (lease !== undefined) await this.#advance(op, lease);
    } finally {
      await lease?.release();
      this.#driving.delete(key);
    }
  }

  /** adopt drives every unfinished Operation that no live replica holds (its driver died). */
  async adopt(): Promise<void> {
    const all = await this.options.store.list<StoredOperation>(OPERATIONS_KIND);
    for (const record of all) {
      if (this.background.closed) return;
      if (record.value.status !== 'DONE' && !this.#driving.has(record.key)) this.background.track(this.drive(record.value));
    }
  }

  /** runWork runs an Operation's work inside `tx` and returns it DONE; a failing work throws WorkFailure. */
  async runWork(tx: Transaction, op: StoredOperation): Promise<StoredOperation> {
    const work = op.work;
    let result: ExecutorResult | undefined;
    if (work !== undefined) {
      const executor = this.#executors.get(work.action);
      try {
        if (executor === undefined) throw internalError(`Internal error: no executor for ${work.action}.`);
        result = (await executor(tx, work.payload, op)) ?? undefined;
      } catch (error) {
        throw new WorkFailure(error instanceof ComputeError ? error : internalError('Internal error. Please try again or contact Google Support.'));
      }
    }
    return { ...this.#done(op), ...(result?.targetId === undefined ? {} : { targetId: result.targetId }) };
  }

  /** failed is the DONE form of an Operation whose work failed. */
  failed(op: StoredOperation, failure: ComputeError): StoredOperation {
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

  /** advance walks a realistic Operation through its states from wherever it is, while `lease` holds. */
  async #advance(op: StoredOperation, lease: HeldLease): Promise<void> {
    const { timers } = this.options;
    if (op.status === 'PENDING') {
      await Promise.race([timers.delay(this.options.pendingMs ?? 100), this.background.closedSignal]);
      if (this.background.closed || lease.lost) return;
      const running = await this.#update(
        op,
        (current) => (current.status === 'PENDING' ? { ...current, status: 'RUNNING', startTime: this.options.clock.now() } : undefined),
        (tx, current) => {
          const hook = current.work === undefined ? undefined : this.#startHooks.get(current.work.action);
          return hook === undefined ? Promise.resolve() : hook(tx, current.work!.payload);
        },
      );
      if (running === undefined) return;
      op = running;
    }
    await Promise.race([timers.delay(this.options.runningMs ?? 300), this.background.closedSignal]);
    if (this.background.closed || lease.lost) return;
    await this.#finish(op);
  }

  /** update rewrites an Operation if `change` returns a new value, `also` doing its part in the same transaction; undefined when gone or unchanged. */
  async #update(
    op: StoredOperation,
    change: (current: StoredOperation) => StoredOperation | undefined,
    also?: (tx: Transaction, current: StoredOperation) => Promise<void>,
  ): Promise<StoredOperation | undefined> {
    const key = operationKey(op.project, op.scope, op.name);
    return this.options.store.transact(async (tx) => {
      const current = await tx.get<StoredOperation>(OPERATIONS_KIND, key);
      if (current === undefined) return undefined;
      const next = change(current.value);
      if (next === undefined) return undefined;
      await also?.(tx, current.value);
      await tx.put(OPERATIONS_KIND, key, next, { expectRevision: current.revision });
      return next;
    });
  }

  /** done is an Operation moved to DONE now, its work dropped (it ran, or was abandoned). */
  #done(op: StoredOperation): StoredOperation {
    const now = this.options.clock.now();
    const { work: _finished, ...rest } = op;
    return { ...rest, status: 'DONE', progress: 100, startTime: op.startTime ?? now, endTime: now };
  }

  /** finish runs the work of a realistic Operation and marks it DONE, with `error` when the work failed. */
  async #finish(op: StoredOperation): Promise<StoredOperation> {
    const key = operationKey(op.project, op.scope, op.name);
    try {
      const done = await this.options.store.transact(async (tx) => {
        const current = await tx.get<StoredOperation>(OPERATIONS_KIND, key);
        if (current === undefined || current.value.status === 'DONE') return current?.value;
        const next = await this.runWork(tx, current.value);
        await tx.put(OPERATIONS_KIND, key, next, { expectRevision: current.revision });
        return next;
      });
      return done ?? op;
    } catch (error) {
      if (!(error instanceof WorkFailure)) throw error;
      const failed = await this.#update(op, (current) => (current.status === 'DONE' ? undefined : this.failed(current, error.error)));
      if (failed !== undefined) return failed;
      const record = await this.options.store.get<StoredOperation>(OPERATIONS_KIND, key);
      if (record === undefined) throw notFound(operationPath(op));
      return record.value;
    }
  }
}

/** WorkFailure carries a failed work's error out of the transaction it rolled back. */
export class WorkFailure extends Error {
  constructor(readonly error: ComputeError) {
    super(error.message);
  }
}
