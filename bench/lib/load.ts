import autocannon from 'autocannon';

/** LoadResult summarises one autocannon run. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** LoadOptions describe one run: a cycle of requests each connection repeats. */
export interface LoadOptions {
  readonly url: string;
  readonly requests: autocannon.Request[];
  readonly connections?: number;
  readonly seconds?: number;
}

/** runLoad drives a server with autocannon and returns its averages. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 16,
    duration: options.seconds ?? Number(process.env['SECONDS'] ?? 8),
    requests: options.requests,
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** printTable prints results with their ratio to the first (baseline) row. */
export function printTable(title: string, rows: readonly { label: string; result: LoadResult }[]): void {
  const base = rows[0]!.result.requestsPerSecond;
  console.log(title);
  console.log(`${'server'.padEnd(34)} ${'req/s'.padStart(9)} ${'× bare'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)}`);
  for (const { label, result } of rows) {
    console.log(
      `${label.padEnd(34)} ${result.requestsPerSecond.toFixed(0).padStart(9)} ${(result.requestsPerSecond / base).toFixed(2).padStart(7)} ${String(result.p99Ms).padStart(7)} ${String(result.non2xx).padStart(8)}`,
    );
  }
}

/** loadSeconds is how long one side of a round drives load: SECONDS from the environment, else 5 (2 with --quick). */
export function loadSeconds(quick: boolean): number {
  return Number(process.env['SECONDS'] ?? (quick ? 2 : 5));
}
