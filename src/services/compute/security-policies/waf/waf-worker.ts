/**
 * A WAF engine thread (started by waf-pool.ts): it loads libmodsecurity once, keeps the rules set
 * of each configuration it has seen (the newest RULE_SETS_KEPT; loading one costs tens of
 * milliseconds), and runs each job's request through them, once without the body (the header
 * phase) and, when there is one, once with it (the body phase).
 */
import { parentPort } from 'node:worker_threads';
import { openModSecurity, type RulesHandle, WafEngineMissingError } from './modsecurity.ts';
import type { PhaseMatches, WafJob, WafReply } from './waf-protocol.ts';

/** RULE_SETS_KEPT bounds the rules sets a thread keeps (each is 15–20 MB). */
const RULE_SETS_KEPT = 16;

const port = parentPort;
if (port === null) throw new Error('waf-worker runs as a worker thread, started by waf-pool');

const kept = new Map<string, RulesHandle>();

function rulesFor(key: string, text: string): RulesHandle {
  const found = kept.get(key);
  if (found !== undefined) {
    kept.delete(key);
    kept.set(key, found);
    return found;
  }
  const rules = openModSecurity().load(text);
  kept.set(key, rules);
  if (kept.size > RULE_SETS_KEPT) {
    const [oldestKey, oldest] = kept.entries().next().value as [string, RulesHandle];
    kept.delete(oldestKey);
    oldest.close();
  }
  return rules;
}

// Loaded before saying ready, so a job's deadline counts the engine's work, not the thread's start.
try {
  openModSecurity();
} catch {
  // Each job then answers why (WafEngineMissingError).
}
port.postMessage({ ready: true });

port.on('message', (job: WafJob) => {
  let reply: WafReply;
  try {
    const header: Record<string, PhaseMatches[string]> = {};
    const body: Record<string, PhaseMatches[string]> = {};
    const { body: bytes, ...headerOnly } = job.request;
    for (const config of job.configs) {
      const rules = rulesFor(config.key, config.text);
      header[config.key] = rules.run(headerOnly);
      if (bytes !== undefined && bytes.length > 0) body[config.key] = rules.run(job.request);
    }
    reply = bytes !== undefined && bytes.length > 0 ? { id: job.id, header, body } : { id: job.id, header };
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    reply = error instanceof WafEngineMissingError ? { id: job.id, failure, missing: true } : { id: job.id, failure };
  }
  port.postMessage(reply);
});
