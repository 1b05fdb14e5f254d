import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { cpuMs, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * Watch fan-out: WATCHERS concurrent watches on the events of one namespace while events are
 * created at RATE per second; prints the delivery latency (create sent → event line received)
 * over every (watcher, event) pair, p50/p99/max (goal: p99 < 50 ms at 1,000 watchers and
 * 500 writes/s), after a warm-up of the same load (WARMUP seconds, default 1). The writer and
 * the watchers share this one client process, on the same machine as the server, so the
 * client's own receiving load is part of what is measured. It is kept
 * cheap (each read is scanned as Latin-1 text for the event's name, never parsed as JSON), and
 * the CPU time of server and client per delivered pair is printed: on a busy machine that, more
 * than the latency, says what the server costs.
 */
const WATCHERS = Number(process.env['WATCHERS'] ?? 1000);
const RATE = Number(process.env['RATE'] ?? 500);
const DURATION_S = Number(process.env['DURATION'] ?? 5);
const WARMUP_S = Number(process.env['WARMUP'] ?? 1);
const TOKEN = 'bench';
const NS = '/api/v1/namespaces/default/events';

const main = ensureBuilt();
const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
const url = new URL(server.url);
const total = RATE * DURATION_S;
// Send time of write i, and one latency per delivered (watcher, event) pair.
const sentAt = new Float64Array(total).fill(NaN);
const latencies = new Float64Array(total * WATCHERS);
let delivered = 0;
let watching = 0;
const MARKER = Buffer.from('"name":"w-', 'latin1');
const NEWLINE = 0x0a;

/**
 * Records the latency of every event line in `bytes` whose name is `w-N`, and returns where the
 * next read continues: past the last whole line. Lines and names are found by byte search (no
 * string is made): the name is near the start of each line, as an event's metadata comes first.
 */
function scan(bytes: Buffer, now: number): number {
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
      if (sent !== undefined && !Number.isNaN(sent)) latencies[delivered++] = now - sent;
    }
    start = end + 1;
  }
  return start;
}

// Warm up the family (first request loads it).
await fetch(`${server.url}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
const rv = String(
  ((await (await fetch(`${server.url}${NS}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion,
);

// Each watch is a raw socket with a hand-written request: Node's HTTP client costs about twice
// as much CPU per received chunk, and on a 2-core machine shared with the server that cost
// showed up as the client falling behind, not as the server's latency. The response (status
// line, headers, chunk-size lines) is scanned like the rest: only the event names are read.
// The scan reads bytes (the names are ASCII), so receiving makes no strings at all.
const watches = Array.from({ length: WATCHERS }, () => {
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
    // A line split across reads is carried to the next one (rare: the server writes whole lines).
    const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    const next = scan(bytes, performance.now());
    carry = next === bytes.length ? undefined : bytes.subarray(next);
  });
  return socket;
});
for (let i = 0; i < 400 && watching < WATCHERS; i++) await new Promise((resolve) => setTimeout(resolve, 25));
if (watching < WATCHERS) throw new Error(`only ${watching} of ${WATCHERS} watches opened`);

const writer = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * writeAtRate creates `count` events named `PREFIX-N` at RATE per second and resolves when every
 * create has answered; `sent(N)` is called as create N goes out.
 */
async function writeAtRate(prefix: string, count: number, sent: (index: number) => void): Promise<void> {
  const began = performance.now();
  const writes: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const wait = began + (index * 1000) / RATE - performance.now();
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
        const req = request(
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
        req.end(body);
      }),
    );
  }
  await Promise.all(writes);
}

// Warm-up: the same load for WARMUP seconds, unmeasured (its names are not `w-N`), so the
// figures are those of a running server rather than of its first compilation of the path.
await writeAtRate('warm', Math.round(RATE * WARMUP_S), () => {});
await new Promise((resolve) => setTimeout(resolve, 200));

const serverCpuBefore = cpuMs(server.child.pid!);
const clientCpuBefore = process.cpuUsage();
const started = performance.now();
await writeAtRate('w', total, (index) => {
  sentAt[index] = performance.now();
});
const expected = total * WATCHERS;
for (let i = 0; i < 400 && delivered < expected; i++) await new Promise((resolve) => setTimeout(resolve, 25));
const achieved = (total * 1000) / (performance.now() - started);
const serverCpu = cpuMs(server.child.pid!) - serverCpuBefore;
const clientCpu = process.cpuUsage(clientCpuBefore);
const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
for (const socket of watches) socket.destroy();
writer.destroy();
await server.stop();

const measured = latencies.subarray(0, delivered).sort();
const at = (q: number): number => measured[Math.min(measured.length - 1, Math.floor(q * measured.length))] ?? NaN;
const perEvent = (ms: number): string => `${((ms * 1000) / Math.max(1, delivered)).toFixed(2)} µs`;
console.log(`watch fan-out: ${WATCHERS} watchers, ${total} creates at ${RATE}/s target (${achieved.toFixed(0)}/s achieved incl. drain)`);
console.log(`delivered ${delivered} of ${expected} (watcher, event) pairs`);
console.log(
  `CPU from the first write to the last delivery: server ${serverCpu.toFixed(0)} ms (${perEvent(serverCpu)} per delivered pair), client ${clientCpuMs.toFixed(0)} ms (${perEvent(clientCpuMs)})`,
);
console.log(
  `delivery latency ms: p50 ${at(0.5).toFixed(1)}  p99 ${at(0.99).toFixed(1)}  max ${at(1).toFixed(1)}  → goal p99 < 50 ms ${at(0.99) < 50 ? 'met' : 'MISSED'}`,
);
