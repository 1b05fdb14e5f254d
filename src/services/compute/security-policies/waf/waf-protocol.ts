/** The messages between the WAF engine pool (waf-pool.ts) and its threads (waf-worker.ts). */
import type { EngineMatch, EngineRequest } from './modsecurity.ts';
import type { RulesLoadLock } from './rules-load-lock.ts';

/** RULE_SETS_KEPT bounds the rules sets a thread keeps (each is 15–20 MB). */
export const RULE_SETS_KEPT = 16;

/** WafWorkerData is what a thread is handed at creation. */
export interface WafWorkerData {
  /** rulesLoadLock is the process's rules-load lock (rules-load-lock.ts). */
  readonly rulesLoadLock: RulesLoadLock;
  /**
   * rulesSlots hold the addresses of the rules sets the thread has loaded and not closed (0 for a
   * free slot; RULE_SETS_KEPT + 1 of them): what the pool frees once the thread has exited, so that a
   * thread ended inside ModSecurity (or idle) does not leak its 15–20 MB rules sets.
   */
  readonly rulesSlots: BigInt64Array;
}

/** ConfigRef is a configuration a job needs: its key and, for a thread that has not loaded it, its text. */
export interface ConfigRef {
  readonly key: string;
  readonly text: string;
}

/** WafJob asks a thread to run one request through some configurations (with its body, a second pass). */
export interface WafJob {
  readonly id: number;
  readonly configs: readonly ConfigRef[];
  readonly request: EngineRequest;
}

/** WafWarm asks a thread to load configurations before any request needs them (the pool's warm-up). */
export interface WafWarm {
  readonly warm: number;
  readonly configs: readonly ConfigRef[];
}

/** PhaseMatches are the CRS rules that fired, per configuration key. */
export type PhaseMatches = Readonly<Record<string, readonly EngineMatch[]>>;

/**
 * WafReply is what a thread says: ready for its first job; a job's configurations being loaded
 * (`loading`, then `loaded`: the load does not count against the job's deadline); a job's answer,
 * matches without the body (the header phase) and, when it had one, with it, or why it failed; a
 * warm-up done (with why it failed, if it did).
 */
export type WafReply =
  | { readonly ready: true }
  | { readonly id: number; readonly loading: true }
  | { readonly id: number; readonly loaded: true }
  | { readonly id: number; readonly header: PhaseMatches; readonly body?: PhaseMatches }
  | { readonly id: number; readonly failure: string; readonly missing?: true }
  | { readonly warmed: number; readonly failure?: string };
