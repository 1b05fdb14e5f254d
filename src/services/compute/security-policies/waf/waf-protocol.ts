/** The messages between the WAF engine pool (waf-pool.ts) and its threads (waf-worker.ts). */
import type { EngineMatch, EngineRequest } from './modsecurity.ts';
import type { RulesLoadLock } from './rules-load-lock.ts';

/** WafWorkerData is what a thread is handed at creation: the process's rules-load lock (rules-load-lock.ts). */
export interface WafWorkerData {
  readonly rulesLoadLock: RulesLoadLock;
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
