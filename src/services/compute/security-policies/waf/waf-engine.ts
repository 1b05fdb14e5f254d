/**
 * The WAF engine as evaluation uses it: a policy's plan (policy-plan.ts) and a request in, the
 * engine's findings out, from a pool of threads running libmodsecurity3 with Debian's Core Rule Set
 * (waf-pool.ts). It never throws: an inspection that failed (deadline, full queue, engine missing)
 * is a finding that says so, and the calls it leaves unanswered decide as `wafUnknown` says, named in
 * the explanation.
 */
import type { TrafficRequest } from '../evaluation/traffic-request.ts';
import type { WafFindings } from './findings.ts';
import type { EngineRequest } from './modsecurity.ts';
import type { WafPlan } from './policy-plan.ts';
import { WafEngineUnavailableError, WafPool, type WafPoolOptions } from './waf-pool.ts';

/** WafEngine inspects requests for the policies that call preconfigured sets. */
export class WafEngine {
  readonly #pool: WafPool;
  /** unavailable is set once the engine failed to load: why (every later inspection says so at once). */
  unavailable: string | undefined;

  constructor(options: WafPoolOptions = {}) {
    this.#pool = new WafPool(options);
  }

  /** inspect runs `request` through the plan's configurations, without and (when it has a body) with the body. */
  async inspect(plan: WafPlan, request: TrafficRequest): Promise<WafFindings> {
    if (this.unavailable !== undefined) return { header: {}, failure: this.unavailable };
    try {
      const answer = await this.#pool.run(
        plan.configs.map(({ key, text }) => ({ key, text })),
        engineRequestOf(request, plan.inspectionLimit),
      );
      return answer.body === undefined ? { header: answer.header } : { header: answer.header, body: answer.body };
    } catch (error) {
      const failure = `the WAF engine gave no answer (${error instanceof Error ? error.message : String(error)})`;
      if (error instanceof WafEngineUnavailableError) this.unavailable = failure;
      return { header: {}, failure };
    }
  }

  /** workers is how many threads inspect at most. */
  get workers(): number {
    return this.#pool.workers;
  }

  /**
   * warm has every thread of the pool load the plan's configurations (the whole Core Rule Set takes
   * a thread a second or more, one thread after another) and keeps them: what a server that is
   * about to announce itself ready awaits, so that its first requests do not wait for a load. A
   * failure is left for the first inspection to report.
   */
  async warm(plan: WafPlan): Promise<void> {
    if (this.unavailable !== undefined) return;
    await this.#pool.warm(plan.configs.map(({ key, text }) => ({ key, text })));
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** engineRequestOf is the request as the engine reads it: the raw target, the headers, the body's first `limit` bytes. */
export function engineRequestOf(request: TrafficRequest, limit: number): EngineRequest {
  const url = request.url;
  const afterScheme = url.indexOf('//');
  const pathStart = afterScheme === -1 ? 0 : url.indexOf('/', afterScheme + 2);
  const target = pathStart === -1 ? '/' : url.slice(pathStart);
  const headers = Object.entries(request.headers).map(([name, value]): [string, string] => [name, value]);
  const body = request.body === undefined || request.body.length === 0 ? undefined : request.body.subarray(0, limit);
  return {
    method: request.method,
    target: target.replace(/#.*$/s, ''),
    httpVersion: request.httpVersion === '2' ? '2.0' : (request.httpVersion ?? '1.1'),
    headers,
    clientIp: request.sourceIp,
    ...(body === undefined ? {} : { body }),
  };
}

/**
 * wafEngineProblem says why the engine cannot run here (the library, koffi or the rule set
 * missing, or the rules refused), or undefined when it can: for the suite's preflight. It loads the
 * engine on the calling thread, under the rules-load lock.
 */
export async function wafEngineProblem(): Promise<string | undefined> {
  const { crsMissing } = await import('./crs-files.ts');
  const missing = crsMissing();
  if (missing !== undefined) return missing;
  const { openModSecurity } = await import('./modsecurity.ts');
  const { configText } = await import('./engine-config.ts');
  const { holdingRulesLoadLockAsync } = await import('./rules-load-lock.ts');
  try {
    const text = configText({ files: ['REQUEST-942-APPLICATION-ATTACK-SQLI.conf'], paranoia: 1, exclusions: [], parsing: { json: false, contentTypes: [] } });
    // The engine's threads may be loading rules in this process too: the parse waits its turn (without blocking).
    const rules = await holdingRulesLoadLockAsync(() => openModSecurity().load(text));
    const fired = rules.run({ method: 'GET', target: '/?id=1%27%20or%20%271%27%3D%271', httpVersion: '1.1', headers: [['host', 'x']], clientIp: '127.0.0.1' });
    rules.close();
    return fired.some((match) => match.id === '942100') ? undefined : 'the WAF engine loaded but CRS 942100 did not fire on a plain SQL injection';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
