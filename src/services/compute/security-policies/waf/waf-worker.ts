/**
 * A WAF engine thread (started by waf-pool.ts): it loads libmodsecurity once, keeps the rules set
 * of each configuration it has seen (the newest RULE_SETS_KEPT; loading one costs tens of
 * milliseconds to seconds), and runs each job's request through them, once without the body (the
 * header phase) and, when there is one, once with it (the body phase). Every load (and the
 * library's initialisation) holds the process's rules-load lock its pool handed it: the rule
 * parser is not reentrant across threads (rules-load-lock.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openModSecurity, type RulesHandle, WafEngineMissingError } from './modsecurity.ts';
import { adoptRulesLoadLock, holdingRulesLoadLock } from './rules-load-lock.ts';
import { type ConfigRef, type PhaseMatches, RULE_SETS_KEPT, type WafJob, type WafReply, type WafWarm, type WafWorkerData } from './waf-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('waf-worker runs as a worker thread, started by waf-pool');
const data = workerData as WafWorkerData;
adoptRulesLoadLock(data.rulesLoadLock);

const kept = new Map<string, RulesHandle>();

/** rulesFor is the loaded rules set of `config`, most recently used last. */
function rulesFor(config: ConfigRef): RulesHandle {
  const found = kept.get(config.key);
  if (found !== undefined) {
    kept.delete(config.key);
    kept.set(config.key, found);
    return found;
  }
  const rules = holdingRulesLoadLock(() => openModSecurity().load(config.text));
  Atomics.store(data.rulesSlots, data.rulesSlots.indexOf(0n), rules.address);
  kept.set(config.key, rules);
  if (kept.size > RULE_SETS_KEPT) {
    const [oldestKey, oldest] = kept.entries().next().value as [string, RulesHandle];
    kept.delete(oldestKey);
    // The slot first: a thread ended between the two leaks the set rather than have it freed twice.
    Atomics.store(data.rulesSlots, data.rulesSlots.indexOf(oldest.address), 0n);
    oldest.close();
  }
  return rules;
}

function send(reply: WafReply): void {
  port?.postMessage(reply);
}

function failureOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Loaded before saying ready, so a job's deadline counts the engine's work, not the thread's start.
try {
  holdingRulesLoadLock(() => openModSecurity());
} catch {
  // Each job then answers why (WafEngineMissingError).
}
send({ ready: true });

function warm(message: WafWarm): void {
  try {
    for (const config of message.configs) rulesFor(config);
    send({ warmed: message.warm });
  } catch (error) {
    send({ warmed: message.warm, failure: failureOf(error) });
  }
}

function inspect(job: WafJob): void {
  let reply: WafReply;
  try {
    // Loading does not depend on the request: the pool holds the job's deadline while it runs.
    if (job.configs.some((config) => !kept.has(config.key))) {
      send({ id: job.id, loading: true });
      for (const config of job.configs) rulesFor(config);
      send({ id: job.id, loaded: true });
    }
    const header: Record<string, PhaseMatches[string]> = {};
    const body: Record<string, PhaseMatches[string]> = {};
    const { body: bytes, ...headerOnly } = job.request;
    for (const config of job.configs) {
      const rules = rulesFor(config);
      header[config.key] = rules.run(headerOnly);
      if (bytes !== undefined && bytes.length > 0) body[config.key] = rules.run(job.request);
    }
    reply = bytes !== undefined && bytes.length > 0 ? { id: job.id, header, body } : { id: job.id, header };
  } catch (error) {
    const failure = failureOf(error);
    reply = error instanceof WafEngineMissingError ? { id: job.id, failure, missing: true } : { id: job.id, failure };
  }
  send(reply);
}

port.on('message', (message: WafJob | WafWarm) => {
  if ('warm' in message) warm(message);
  else inspect(message);
});
