import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { cpuMs, ensureBuilt, rssMb, startProcess, type Started } from './lib/processes.ts';
import { atMost, type Bench, type BenchMetric, metricOf, runAlone } from './lib/report.ts';

/**
 * Watch fan-out: WATCHERS concurrent watches (default 10,000) on the events of one namespace
 * while events are created at RATE per second (default 1,000); the delivery latency (create sent
 * → event line received) over every (watcher, event) pair, p99 per round (goal < 100 ms), after
 * a warm-up of the same load, and the server's RSS with every watch open. A fresh server per
 * round. The writer and the watchers share this one client process, on the same machine as the
 * server, so the client's own receiving load is part of what is measured: it is kept cheap (each
 * read is scanned as bytes for the event's name, never parsed as JSON), and the CPU time of
 * server and client per delivered pair is reported: on a busy machine that, more than the
 * latency, says what the server costs. No bare baseline: the goal is a latency.
 * Environment: WATCHERS, RATE, DURATION (seconds of writes per round; 3, or 2 with --quick), WARMUP (1).
 */
const TOKEN = 'bench';
const NS = '/api/v1/namespaces/default/events';
const MARKER = Buffer.from('"name":"w-', 'latin1');
const NEWLINE = 0x0a;
/** Latencies are counted in buckets of 0.1 ms up to 60 s (a histogram: millions of pairs a round). */
const BUCKETS_PER_MS = 10;
const MAX_MS = 60_000;

interface Round {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly delivered: number;
  readonly expected: number;
  readonly serverCpuUsPerPair: number;
  readonly clientCpuUsPerPair: number;
  readonly rssMb: number;
  readonly achievedRate: number;
}

/** fanout runs one round against a fresh server. */
async function fanout(main: string, watchers: number, rate: number, seconds: number, warmupSeconds: number): Promise<Round> {
  const server: Started = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
  const url = new URL(server.url);
  const total = Math.round(rate * seconds);
  const sentAt = new Float64Array(total).fill(Number.NaN);
  const histogram = new Uint32Array(MAX_MS * BUCKETS_PER_MS + 1);
  let delivered = 0;
  let slowest = 0;
  let watching = 0;

  /** Records the latency of every event line in `bytes` named `w-N`; returns where the next read continues (past the last whole line). */
  const scan = (bytes: Buffer, now: number): number => {
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE, start); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const at = bytes.indexOf(MARKER, start);
      if (at !== -1 && at < end) {
        let n = 0;
        for (let i = at + MARKER.length; i < bytes.length; i++) {
          const c = bytes[i]!;
          if (c < 0x30 || c > 0x39) break;
          n = n * 10 + c - 0x30;
        }
        const sent = sentAt[n];
        if (sent !== undefined && !Number.isNaN(sent)) {
          const ms = now - sent;
          histogram[Math.min(histogram.length - 1, Math.max(0, Math.round(ms * BUCKETS_PER_MS)))]!++;
          if (ms > slowest) slowest = ms;
          delivered++;
        }
      }
      start = end + 1;
    }
    return start;
  };

  const sockets: Socket[] = [];
  const writer = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    // Warm up the family (the first request loads it) and read the revision every watch starts from.
    const listed = await fetch(`${server.url}${NS}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const rv = String(((await listed.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

    // Each watch is a raw socket with a hand-written request: Node's HTTP client costs about twice
    // as much CPU per received chunk, which on a shared 2-core machine showed up as the client
    // falling behind, not as the server's latency. Opened a few hundred at a time (the listen backlog).
    const open = (): void => {
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      socket.setNoDelay(true);
      socket.write(`GET ${NS}?watch=true&resourceVersion=${rv} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      let carry: Buffer | undefined;
      let opened = false;
      socket.on('data', (chunk: Buffer) => {
        if (!opened) {
          opened = true;
          if (!chunk.toString('latin1', 0, 12).startsWith('HTTP/1.1 200')) throw new Error(`watch refused: ${chunk.toString('latin1')}`);
          watching++;
        }
        // A line split across reads is carried to the next one.
        const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
        const next = scan(bytes, performance.now());
        carry = next === bytes.length ? undefined : bytes.subarray(next);
      });
      socket.on('error', () => undefined);
      sockets.push(socket);
    };
    for (let batch = 0; batch < watchers; batch += 250) {
      for (let i = batch; i < Math.min(watchers, batch + 250); i++) open();
      for (let wait = 0; wait < 400 && watching < Math.min(watchers, batch + 250); wait++) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (watching < watchers) throw new Error(`only ${watching} of ${watchers} watches opened`);
    const rss = rssMb(server.child.pid!);

    /** writeAtRate creates `count` events named `PREFIX-N` at `rate` per second; `sent(N)` is called as create N goes out. */
    const writeAtRate = async (prefix: string, count: number, sent: (index: number) => void): Promise<void> => {
      const began = performance.now();
      const writes: Promise<void>[] = [];
      for (let index = 0; index < count; index++) {
        const wait = began + (index * 1000) / rate - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        const body = JSON.stringify({
          metadata: { name: `${prefix}-${index}` },
          involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
          reason: 'Fanout',
          message: 'm',
        });
        sent(index);
        writes.push(
          new Promise((resolve, reject) => {
            const outgoing = request(
              {
                host: url.hostname,
                port: url.port,
                path: NS,
                method: 'POST',
                agent: writer,
                headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
              },
              (response) => {
                response.resume();
                response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`create answered ${response.statusCode}`))));
              },
            );
            outgoing.once('error', reject);
            outgoing.end(body);
          }),
        );
      }
      await Promise.all(writes);
    };

    // Warm-up: the same load, unmeasured (its names are not `w-N`).
    await writeAtRate('warm', Math.round(rate * warmupSeconds), () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));

    const serverCpuBefore = cpuMs(server.child.pid!);
    const clientCpuBefore = process.cpuUsage();
    const started = performance.now();
    await writeAtRate('w', total, (index) => {
      sentAt[index] = performance.now();
    });
    const expected = total * watchers;
    for (let i = 0; i < 400 && delivered < expected; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const achievedRate = (total * 1000) / (performance.now() - started);
    const serverCpu = cpuMs(server.child.pid!) - serverCpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const at = (q: number): number => {
      const rank = Math.ceil(q * delivered);
      let seen = 0;
      for (let bucket = 0; bucket < histogram.length; bucket++) {
        seen += histogram[bucket]!;
        if (seen >= rank) return bucket / BUCKETS_PER_MS;
      }
      return Number.NaN;
    };
    const perPair = (ms: number): number => (ms * 1000) / Math.max(1, delivered);
    return {
      p50: at(0.5),
      p99: at(0.99),
      max: slowest,
      delivered,
      expected,
      serverCpuUsPerPair: perPair(serverCpu),
      clientCpuUsPerPair: perPair((clientCpu.user + clientCpu.system) / 1000),
      rssMb: rss,
      achievedRate,
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    writer.destroy();
    await server.stop();
  }
}

/** bench measures the p99 delivery latency of WATCHERS watches at RATE writes per second, and the server's RSS. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const watchers = Number(process.env['WATCHERS'] ?? 10_000);
  const rate = Number(process.env['RATE'] ?? 1000);
  const seconds = Number(process.env['DURATION'] ?? (quick ? 2 : 3));
  const warmup = Number(process.env['WARMUP'] ?? 1);
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) results.push(await fanout(main, watchers, rate, seconds, warmup));
  const label = `${watchers.toLocaleString('en-US')} watchers, ${rate.toLocaleString('en-US')} writes/s`;
  const worst = results.reduce((a, b) => (a.delivered / a.expected < b.delivered / b.expected ? a : b));
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const metrics: BenchMetric[] = [
    metricOf({
      metric: `watch fan-out p99 delivery (${label})`,
      unit: 'ms',
      fogbank: results.map((r) => r.p99),
      goal: atMost(100, 'ms'),
      note:
        `p50 ${median(results.map((r) => r.p50)).toFixed(1)} ms, max ${median(results.map((r) => r.max)).toFixed(0)} ms; ` +
        `${worst.delivered} of ${worst.expected} pairs delivered in the worst round; writes achieved ${median(results.map((r) => r.achievedRate)).toFixed(0)}/s; ` +
        `CPU per delivered pair: server ${median(results.map((r) => r.serverCpuUsPerPair)).toFixed(2)} µs, client ${median(results.map((r) => r.clientCpuUsPerPair)).toFixed(2)} µs (same machine)`,
    }),
    metricOf({ metric: `watch fan-out server RSS (${label}, every watch open)`, unit: 'MiB', fogbank: results.map((r) => r.rssMb) }),
  ];
  return metrics;
};

runAlone(import.meta, bench);
