import { Agent, request } from 'node:http';
import { cpuMs, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * Watch fan-out: WATCHERS concurrent watches on the events of one namespace while events are
 * created at RATE per second; prints the delivery latency (create sent → event line received)
 * over every (watcher, event) pair, p50/p99/max (goal: p99 < 50 ms at 1,000 watchers and
 * 500 writes/s). The writer and the watchers share this one client process, on the same machine
 * as the server, so the client's own receiving load is part of what is measured. It is kept
 * cheap (each read is scanned as Latin-1 text for the event's name, never parsed as JSON), and
 * the CPU time of server and client per delivered pair is printed: on a busy machine that, more
 * than the latency, says what the server costs.
 */
const WATCHERS = Number(process.env['WATCHERS'] ?? 1000);
const RATE = Number(process.env['RATE'] ?? 500);
const DURATION_S = Number(process.env['DURATION'] ?? 5);
const TOKEN = 'bench';
const NS = '/api/v1/namespaces/default/events';

const main = ensureBuilt();
const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
const url = new URL(server.url);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const total = RATE * DURATION_S;
// Send time of write i, and one latency per delivered (watcher, event) pair.
const sentAt = new Float64Array(total).fill(NaN);
const latencies = new Float64Array(total * WATCHERS);
let delivered = 0;
let watching = 0;
const MARKER = '"name":"w-';

/**
 * Records the latency of every event line in `text` whose name is `w-N`, and returns where the
 * next read continues: past the last whole line. Newlines are found with a one-character search,
 * and the name near the start of each line (an event's metadata comes first).
 */
function scan(text: string, now: number): number {
  let start = 0;
  let end;
  while ((end = text.indexOf('\n', start)) !== -1) {
    const at = text.indexOf(MARKER, start);
    if (at !== -1 && at < end) {
      let n = 0;
      for (let i = at + MARKER.length, c; (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39; i++) n = n * 10 + c - 0x30;
      const sent = sentAt[n];
      if (sent !== undefined && !Number.isNaN(sent)) latencies[delivered++] = now - sent;
    }
    start = end + 1;
  }
  return start;
}

// Warm up the family (first request loads it).
await fetch(`${server.url}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
const rv = String(((await (await fetch(`${server.url}${NS}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

const requests = Array.from({ length: WATCHERS }, () =>
  request({ host: url.hostname, port: url.port, path: `${NS}?watch=true&resourceVersion=${rv}`, agent, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
    watching++;
    // Latin-1 maps each byte to one character: no UTF-8 decoding, and the names are ASCII.
    response.setEncoding('latin1');
    let carry = '';
    response.on('data', (chunk: string) => {
      const text = carry + chunk;
      carry = text.slice(scan(text, performance.now()));
    });
  }),
);
for (const req of requests) req.end();
for (let i = 0; i < 400 && watching < WATCHERS; i++) await new Promise((resolve) => setTimeout(resolve, 25));
if (watching < WATCHERS) throw new Error(`only ${watching} of ${WATCHERS} watches opened`);

const writer = new Agent({ keepAlive: true, maxSockets: 16 });
let counter = 0;
const serverCpuBefore = cpuMs(server.child.pid!);
const clientCpuBefore = process.cpuUsage();
const started = performance.now();
const writes: Promise<void>[] = [];
while (counter < total) {
  const due = started + (counter * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  const index = counter++;
  const name = `w-${index}`;
  const body = JSON.stringify({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Fanout', message: 'm' });
  sentAt[index] = performance.now();
  writes.push(
    new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: NS, method: 'POST', agent: writer, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`create answered ${response.statusCode}`))));
      });
      req.end(body);
    }),
  );
}
await Promise.all(writes);
const expected = total * WATCHERS;
for (let i = 0; i < 400 && delivered < expected; i++) await new Promise((resolve) => setTimeout(resolve, 25));
const achieved = (total * 1000) / (performance.now() - started);
const serverCpu = cpuMs(server.child.pid!) - serverCpuBefore;
const clientCpu = process.cpuUsage(clientCpuBefore);
const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
for (const req of requests) req.destroy();
agent.destroy();
writer.destroy();
await server.stop();

const measured = latencies.subarray(0, delivered).sort();
const at = (q: number): number => measured[Math.min(measured.length - 1, Math.floor(q * measured.length))] ?? NaN;
const perEvent = (ms: number): string => `${((ms * 1000) / Math.max(1, delivered)).toFixed(2)} µs`;
console.log(`watch fan-out: ${WATCHERS} watchers, ${total} creates at ${RATE}/s target (${achieved.toFixed(0)}/s achieved incl. drain)`);
console.log(`delivered ${delivered} of ${expected} (watcher, event) pairs`);
console.log(`CPU from the first write to the last delivery: server ${serverCpu.toFixed(0)} ms (${perEvent(serverCpu)} per delivered pair), client ${clientCpuMs.toFixed(0)} ms (${perEvent(clientCpuMs)})`);
console.log(`delivery latency ms: p50 ${at(0.5).toFixed(1)}  p99 ${at(0.99).toFixed(1)}  max ${at(1).toFixed(1)}  → goal p99 < 50 ms ${at(0.99) < 50 ? 'met' : 'MISSED'}`);
