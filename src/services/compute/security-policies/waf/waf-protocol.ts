/** The messages between the WAF engine pool (waf-pool.ts) and its threads (waf-worker.ts). */
import type { EngineMatch, EngineRequest } from './modsecurity.ts';

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

/** PhaseMatches are the CRS rules that fired, per configuration key. */
export type PhaseMatches = Readonly<Record<string, readonly EngineMatch[]>>;

/** WafReply answers a job (or says the thread is ready for its first): matches without the body (the header phase) and, when it had one, with it. */
export type WafReply =
  | { readonly ready: true }
  | { readonly id: number; readonly header: PhaseMatches; readonly body?: PhaseMatches }
  | { readonly id: number; readonly failure: string; readonly missing?: true };
