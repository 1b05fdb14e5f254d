/**
 * The binding to Debian's libmodsecurity3 (`libmodsecurity.so.3`, ModSecurity 3.0.9's C API in
 * `modsecurity/{modsecurity,rules_set,transaction}.h`), through koffi: no compiler, no addon to
 * build. Synchronous and CPU-bound, so it runs only on the WAF worker threads (waf-worker.ts), never
 * on the event loop. Call sequence and configuration: shared/reference/cloud-armor-waf.md §6.
 */
import { createRequire } from 'node:module';
import { rulesLoadLockHeld } from './rules-load-lock.ts';

/** MODSECURITY_LIBRARY is the shared object Debian's libmodsecurity3 installs. */
export const MODSECURITY_LIBRARY = 'libmodsecurity.so.3';

/** WafEngineMissingError is the engine (koffi, or libmodsecurity3 itself) not loadable here. */
export class WafEngineMissingError extends Error {
  override readonly name = 'WafEngineMissingError';
}

/** EngineRequest is one request as the engine is handed it: raw target, raw header bytes, raw body. */
export interface EngineRequest {
  readonly method: string;
  /** target is the raw request-target, path and query as sent (`/search?id=1%27`). */
  readonly target: string;
  readonly httpVersion: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly clientIp: string;
  /** body is at most the inspection limit's first bytes; undefined for the header phase. */
  readonly body?: Uint8Array;
}

/** EngineMatch is one CRS rule that fired, with the variable it names last (`ARGS:id`). */
export interface EngineMatch {
  readonly id: string;
  readonly variable?: string;
}

/** RulesHandle is a loaded rules set. */
export interface RulesHandle {
  /** address is the rules set's address in the process (freeRulesAt frees it once its thread has ended). */
  readonly address: bigint;
  /** run processes one request through phases 1 and 2 and returns the rules that fired (deduplicated, in order). */
  run(request: EngineRequest): EngineMatch[];
  close(): void;
}

/** ModSecurity is the loaded library, one per thread. */
export interface ModSecurity {
  /**
   * load adds `text` (configuration and rules, in order) to a new rules set; throws with the
   * engine's message on a parse error. The parser is not reentrant across threads: the caller holds
   * the process's rules-load lock (rules-load-lock.ts), and load refuses to parse without it.
   */
  load(text: string): RulesHandle;
}

type Pointer = unknown;
type Fn = (...args: unknown[]) => unknown;

let loaded: ModSecurity | undefined;

/** openModSecurity loads the library once per thread (the first call holding the rules-load lock); throws WafEngineMissingError when it cannot. */
export function openModSecurity(): ModSecurity {
  loaded ??= bind();
  return loaded;
}

function bind(): ModSecurity {
  const require = createRequire(import.meta.url);
  // biome-ignore lint/suspicious/noExplicitAny: koffi's own types are not needed for a dozen declarations.
  let koffi: any;
  try {
    koffi = require('koffi');
  } catch (error) {
    throw new WafEngineMissingError(`the npm package koffi does not load (${error instanceof Error ? error.message : String(error)})`);
  }
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  let lib: any;
  try {
    lib = koffi.load(MODSECURITY_LIBRARY);
  } catch (error) {
    throw new WafEngineMissingError(
      `${MODSECURITY_LIBRARY} does not load (${error instanceof Error ? error.message : String(error)}): install Debian's libmodsecurity3 and modsecurity-crs`,
    );
  }
  const LogCallback = koffi.proto('void fogbank_msc_log_cb(void *data, const char *message)');
  const fn = (declaration: string): Fn => lib.func(declaration) as Fn;
  const init = fn('void *msc_init()');
  const setConnectorInfo = fn('void msc_set_connector_info(void *ms, const char *info)');
  const setLogCallback = fn('void msc_set_log_cb(void *ms, fogbank_msc_log_cb *cb)');
  const createRules = fn('void *msc_create_rules_set()');
  const addRules = fn('int msc_rules_add(void *rules, const char *text, _Out_ const char **error)');
  const cleanupRules = fn('int msc_rules_cleanup(void *rules)');
  const newTransaction = fn('void *msc_new_transaction(void *ms, void *rules, void *data)');
  const processConnection = fn('int msc_process_connection(void *t, const char *client, int cport, const char *server, int sport)');
  const processUri = fn('int msc_process_uri(void *t, const char *uri, const char *method, const char *version)');
  const addHeader = fn('int msc_add_n_request_header(void *t, const uint8_t *key, size_t klen, const uint8_t *value, size_t vlen)');
  const processHeaders = fn('int msc_process_request_headers(void *t)');
  const appendBody = fn('int msc_append_request_body(void *t, const uint8_t *body, size_t size)');
  const processBody = fn('int msc_process_request_body(void *t)');
  const processLogging = fn('int msc_process_logging(void *t)');
  const cleanupTransaction = fn('void msc_transaction_cleanup(void *t)');

  // One transaction runs at a time on a thread (the calls are synchronous), so its lines go to one slot.
  let lines: string[] | undefined;
  const callback = koffi.register((_data: Pointer, message: string | null) => {
    if (message !== null) lines?.push(message);
  }, koffi.pointer(LogCallback));
  // msc_init starts libcurl and libxml2 (curl_global_init is not thread-safe): under the lock too.
  if (!rulesLoadLockHeld()) throw new Error('libmodsecurity is initialised only under the rules-load lock');
  const ms = init();
  setConnectorInfo(ms, 'fogbank (Cloud Armor preconfigured WAF emulation)');
  setLogCallback(ms, callback);

  return {
    load(text) {
      if (!rulesLoadLockHeld()) throw new Error('libmodsecurity parses rules only under the rules-load lock (its parser is not reentrant)');
      const rules = createRules();
      const error: [string | null] = [null];
      const added = addRules(rules, text, error) as number;
      if (added < 0) {
        cleanupRules(rules);
        throw new Error(`the WAF engine refused its rules: ${error[0] ?? 'no reason given'}`);
      }
      let open = true;
      return {
        address: BigInt(koffi.address(rules)),
        run(request) {
          if (!open) throw new Error('the rules set was closed');
          const t = newTransaction(ms, rules, null);
          const collected: string[] = [];
          lines = collected;
          try {
            processConnection(t, request.clientIp, 0, '127.0.0.1', 80);
            processUri(t, request.target, request.method, request.httpVersion);
            for (const [name, value] of request.headers) {
              const key = Buffer.from(name, 'utf8');
              const bytes = Buffer.from(value, 'utf8');
              addHeader(t, key, key.length, bytes, bytes.length);
            }
            processHeaders(t);
            if (request.body !== undefined && request.body.length > 0) appendBody(t, request.body, request.body.length);
            // Phase 2 runs with or without a body: nearly every signature is a phase-2 rule.
            processBody(t);
            processLogging(t);
          } finally {
            lines = undefined;
            cleanupTransaction(t);
          }
          return matchesOf(collected);
        },
        close() {
          if (!open) return;
          open = false;
          cleanupRules(rules);
        },
      };
    },
  };
}

let freeRules: Fn | undefined;

/**
 * freeRulesAt frees the rules set at `address`, loaded by a thread that has ended without closing
 * it (ended past a deadline inside ModSecurity: terminate() runs no cleanup). Only for a rules set
 * no thread can use any more. A failure to bind the library is left silent: nothing was loaded then.
 */
export function freeRulesAt(address: bigint): void {
  if (freeRules === undefined) {
    try {
      // biome-ignore lint/suspicious/noExplicitAny: one declaration of koffi's.
      const koffi: any = createRequire(import.meta.url)('koffi');
      freeRules = koffi.load(MODSECURITY_LIBRARY).func('int msc_rules_cleanup(uintptr_t rules)') as Fn;
    } catch {
      return;
    }
  }
  freeRules(address);
}

const ID = /\[id "(\d+)"\]/;
const FOUND_WITHIN = /\[data "Matched Data: .*? found within ([A-Z_]+:[^:\]"]*)/;

/** matchesOf reads the rules that fired from the engine's log lines: one per rule, the first line each (multiMatch rules repeat). */
export function matchesOf(lines: readonly string[]): EngineMatch[] {
  const seen = new Map<string, EngineMatch>();
  for (const line of lines) {
    const id = ID.exec(line)?.[1];
    if (id === undefined || seen.has(id)) continue;
    const variable = FOUND_WITHIN.exec(line)?.[1];
    seen.set(id, variable === undefined ? { id } : { id, variable });
  }
  return [...seen.values()];
}
