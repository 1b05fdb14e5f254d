import { Agent, request } from 'node:http';
import { ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * Watch fan-out: WATCHERS concurrent watches on the events of one namespace while events are
 * created at RATE per second; prints the delivery latency (create sent → event line received)
 * over every (watcher, event) pair, p50/p99/max (goal: p99 < 50 ms at 1,000 watchers and
 * 500 writes/s). The writer and the watchers share this one client process, whose own parsing
 * load is part of what is measured.
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
const sentAt = new Map<string, number>();
const latencies: number[] = [];
let watching = 0;

// Warm up the family (first request loads it).
await fetch(`${server.url}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
const rv = String(((await (await fetch(`${server.url}${NS}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

const requests = Array.from({ length: WATCHERS }, () =>
  request({ host: url.hostname, port: url.port, path: `${NS}?watch=true&resourceVersion=${rv}`, agent, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
    watching++;
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const now = performance.now();
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        // The name alone identifies the write; no full parse per line.
        const name = /"name":"(w-\d+)"/.exec(line)?.[1];
        const sent = name === undefined ? undefined : sentAt.get(name);
        if (sent !== undefined) latencies.push(now - sent);
      }
    });
  }),
);
for (const req of requests) req.end();
for (let i = 0; i < 400 && watching < WATCHERS; i++) await new Promise((resolve) => setTimeout(resolve, 25));
if (watching < WATCHERS) throw new Error(`only ${watching} of ${WATCHERS} watches opened`);

const writer = new Agent({ keepAlive: true, maxSockets: 16 });
let counter = 0;
const total = RATE * DURATION_S;
const started = performance.now();
const writes: Promise<void>[] = [];
while (counter < total) {
  const due = started + (counter * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  const name = `w-${counter++}`;
  const body = JSON.stringify({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Fanout', message: 'm' });
  sentAt.set(name, performance.now());
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
for (let i = 0; i < 400 && latencies.length < expected; i++) await new Promise((resolve) => setTimeout(resolve, 25));
const achieved = (total * 1000) / (performance.now() - started);
for (const req of requests) req.destroy();
agent.destroy();
writer.destroy();
await server.stop();

latencies.sort((a, b) => a - b);
const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
console.log(`watch fan-out: ${WATCHERS} watchers, ${total} creates at ${RATE}/s target (${achieved.toFixed(0)}/s achieved incl. drain)`);
console.log(`delivered ${latencies.length} of ${expected} (watcher, event) pairs`);
console.log(`delivery latency ms: p50 ${at(0.5).toFixed(1)}  p99 ${at(0.99).toFixed(1)}  max ${at(1).toFixed(1)}  → goal p99 < 50 ms ${at(0.99) < 50 ? 'met' : 'MISSED'}`);
