/**
 * The bad-input fuzzer's guard lane (issue 44): hostile HTTP (guard-attacks.ts) through a guard
 * in a process of its own (guard-child.ts) to an upstream in this one, which records what reaches
 * it. Required to be 0: crashes (the guard process died), stalls (no answer head within 5 s, or a
 * heartbeat GET through the guard waiting over 1 s longer than a bare one to the upstream beside it),
 * the guard's internal errors (whatever threw
 * inside it, answered 502 `guard_internal_error`), and bypasses: a request reaching the upstream that no decision
 * forwarded (one hidden in a body or a pipeline), one forwarded with another target or Host than
 * the one decided on, or one whose path (as a URL parser reads it) or Host the policy denies.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { deniedHost, deniedPath, type GuardFuzzRequest, guardAttack, TAG_HEADER } from './guard-attacks.ts';
import { Random } from './random.ts';

const CHILD = fileURLToPath(new URL('./guard-child.ts', import.meta.url));
/** LANES are the connections sending at once (each one request at a time). */
const LANES = 6;
const ANSWER_TIMEOUT_MS = 5000;
const HEARTBEAT_LIMIT_MS = 1000;

interface Decided {
  readonly tag: string;
  readonly url: string;
  readonly host: string;
  readonly outcome: string;
}
interface Arrival {
  readonly tag: string | undefined;
  readonly target: string;
  readonly hosts: readonly string[];
}

/** exchange writes the bytes and resolves with the answer's status once its head is in (and a short settle), or undefined with none in time. */
function exchange(port: number, bytes: Buffer): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let seen = '';
    let status: number | undefined;
    let settle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(deadline);
      clearTimeout(settle);
      socket.destroy();
      resolve(status);
    };
    const deadline = setTimeout(finish, ANSWER_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      if (status !== undefined) return;
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      const line = /^HTTP\/1\.[01] (\d{3})/.exec(seen);
      if (end !== -1 && line !== null) {
        status = Number(line[1]);
        // A moment more, so a request pipelined behind is read and decided too.
        settle = setTimeout(finish, 10);
      }
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

/** GuardChild is the guard process: its port, and whether it is alive. */
class GuardChild {
  child: ChildProcess | undefined;
  port = 0;
  deaths: string[] = [];
  constructor(
    private readonly upstream: string,
    private readonly decided: (decision: Decided) => void,
    private readonly failed: (stack: string) => void,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = fork(CHILD, [this.upstream], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('message', (message: { port?: number; decided?: Decided; failed?: string }) => {
        if (message.decided !== undefined) this.decided(message.decided);
        else if (message.failed !== undefined) this.failed(message.failed);
        else if (message.port !== undefined) {
          this.port = message.port;
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        if (this.child === child) {
          this.child = undefined;
          this.deaths.push(`exit ${code ?? signal}: ${stderr.slice(-500)}`);
        }
        reject(new Error(`the guard process exited before listening: ${stderr.slice(-500)}`));
      });
      this.child = child;
    });
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    child?.kill();
  }
}

/** guardLaneTest registers the guard lane's test: `requests` hostile exchanges from `seed`. */
export function guardLaneTest(seed: number, requests: number, maxFailures: number): void {
  it(`guard lane: ${requests} hostile requests through the guard, none crashing or stalling it, none reaching the upstream undecided or denied (seed ${seed})`, {
    timeout: 600_000,
  }, async (t) => {
    const arrivals: Arrival[] = [];
    const upstream = createServer((request, response) => {
      const hosts: string[] = [];
      for (let i = 0; i + 1 < request.rawHeaders.length; i += 2)
        if (request.rawHeaders[i]?.toLowerCase() === 'host') hosts.push(request.rawHeaders[i + 1] ?? '');
      const tag = request.headers[TAG_HEADER];
      if (request.url !== '/heartbeat') arrivals.push({ tag: typeof tag === 'string' ? tag : undefined, target: request.url ?? '', hosts });
      request.resume();
      request.on('end', () => response.end());
    });
    upstream.on('upgrade', (request, socket) => {
      const tag = request.headers[TAG_HEADER];
      arrivals.push({ tag: typeof tag === 'string' ? tag : undefined, target: request.url ?? '', hosts: [request.headers.host ?? ''] });
      socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const decisions = new Map<string, Decided[]>();
    const internalErrors: string[] = [];
    const guard = new GuardChild(
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      (decision) => {
        const list = decisions.get(decision.tag);
        if (list === undefined) decisions.set(decision.tag, [decision]);
        else list.push(decision);
      },
      (stack) => internalErrors.push(stack),
    );
    await guard.start();

    // The heartbeat: one allowed GET after another through the guard, each beside a bare one
    // straight to the upstream, on connections of their own. What the guard adds to a beat is the
    // difference: a machine busy with other work slows both alike, a guard stalled by a request
    // only its own.
    let beating = true;
    let worstBeat = 0;
    let worstAdded = 0;
    let beats = 0;
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })] as const;
    const upstreamPort = (upstream.address() as AddressInfo).port;
    const beat = (port: number, agent: Agent): Promise<number> =>
      new Promise((resolve) => {
        const started = performance.now();
        const done = (): void => resolve(performance.now() - started);
        const probe = httpRequest({ host: '127.0.0.1', port, path: '/heartbeat', agent, headers: { host: 'public.local' } }, (response) => {
          response.resume();
          response.on('end', done);
        });
        probe.on('error', done);
        probe.end();
      });
    // The policy calls a WAF set: the engine's threads start (each loading the Core Rule Set, a
    // second or two) with the first requests; started before the heartbeat, so it times what the
    // hostile requests cost the others, not that start (issue 39).
    const warming = new Agent({ keepAlive: false });
    await Promise.all(Array.from({ length: 4 }, () => beat(guard.port, warming)));
    warming.destroy();
    const heartbeat = (async () => {
      while (beating) {
        const [through, bare] = await Promise.all([beat(guard.port, agents[0]), beat(upstreamPort, agents[1])]);
        worstBeat = Math.max(worstBeat, through);
        worstAdded = Math.max(worstAdded, through - bare);
        beats++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const failures: string[] = [];
    const sent = new Map<string, GuardFuzzRequest>();
    const tally = new Map<string, number>();
    let crashes = 0;
    let stalls = 0;
    let next = 0;
    const random = new Random(seed);
    const started = performance.now();
    const lane = async (): Promise<void> => {
      while (next < requests && failures.length < maxFailures) {
        const fuzz = guardAttack(random, next++);
        sent.set(fuzz.tag, fuzz);
        if (guard.child === undefined) {
          crashes++;
          failures.push(
            `the guard process died (${guard.deaths.at(-1) ?? '?'}) by or before [${fuzz.attack}] ${JSON.stringify(fuzz.bytes.toString('latin1').slice(0, 200))}`,
          );
          await guard.start();
        }
        const status = await exchange(guard.port, fuzz.bytes);
        const key = `${fuzz.attack} ${status ?? 'none'}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        // The upstream answers everything 200: a 5xx to a WAF-hostile body is the guard's own (issue 39).
        if (status !== undefined && status >= 500 && fuzz.attack.startsWith('waf:'))
          failures.push(`the guard answered ${status} to [${fuzz.attack}] ${JSON.stringify(fuzz.bytes.toString('latin1').slice(0, 200))}`);
        if (status === undefined && guard.child !== undefined) {
          stalls++;
          failures.push(`no answer within ${ANSWER_TIMEOUT_MS} ms to [${fuzz.attack}] ${JSON.stringify(fuzz.bytes.toString('latin1').slice(0, 200))}`);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: LANES }, lane));
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      beating = false;
      await heartbeat;
      for (const agent of agents) agent.destroy();
    }
    const alive = guard.child !== undefined;
    guard.stop();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    if (!alive) {
      crashes++;
      failures.push(`the guard process died (${guard.deaths.at(-1) ?? '?'})`);
    }

    // What reached the upstream, against what was decided.
    let bypasses = 0;
    const forwardedByTag = new Map<string, number>();
    const show = (tag: string | undefined): string => {
      const fuzz = tag === undefined ? undefined : sent.get(tag.replace(/[bs]$/, ''));
      return fuzz === undefined ? '' : ` sent as [${fuzz.attack}] ${JSON.stringify(fuzz.bytes.toString('latin1').slice(0, 300))}`;
    };
    for (const arrival of arrivals) {
      const bypass = (problem: string): void => {
        bypasses++;
        if (failures.length < maxFailures) failures.push(`bypass: ${arrival.target} (Host ${arrival.hosts.join(' | ')}) ${problem}${show(arrival.tag)}`);
      };
      if (arrival.tag === undefined || arrival.tag.includes(',')) {
        bypass(`reached the upstream with tag ${arrival.tag ?? 'none'}: no decision of its own forwarded it`);
        continue;
      }
      const used = forwardedByTag.get(arrival.tag) ?? 0;
      forwardedByTag.set(arrival.tag, used + 1);
      const forwarded = (decisions.get(arrival.tag) ?? []).filter((decision) => decision.outcome === 'forward');
      const decision = forwarded[used];
      if (decision === undefined) {
        bypass(`reached the upstream ${used + 1} time(s), forwarded by ${forwarded.length} decision(s)`);
        continue;
      }
      const decidedTarget = decision.url.replace(/^[a-z]+:\/\/[^/]*/i, '');
      if (arrival.target !== decidedTarget) bypass(`was decided as ${decidedTarget}`);
      else if (arrival.hosts.length !== 1 || arrival.hosts[0] !== decision.host) bypass(`was decided with Host ${decision.host}`);
      else if (deniedPath(arrival.target) || arrival.hosts.some(deniedHost)) bypass('is a path or Host the policy denies');
    }
    const refused = [...decisions.values()].flat().filter((decision) => decision.outcome === 'guard').length;
    for (const stack of internalErrors.slice(0, 3)) failures.push(`the guard failed inside and answered 502: ${stack}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    t.diagnostic(
      `guard lane: ${next} requests in ${seconds} s, ${arrivals.length} reached the upstream, ${crashes} crashes, ${stalls} stalls, ${bypasses} bypasses, ${internalErrors.length} internal errors; heartbeat ${beats} probes, worst ${Math.round(worstBeat)} ms, worst added over a bare one ${Math.round(worstAdded)} ms (${refused} refused by the engine as unreadable)`,
    );
    t.diagnostic(
      `guard lane answers by attack and status: ${[...tally]
        .sort()
        .map(([key, n]) => `${key}×${n}`)
        .join(', ')}`,
    );
    if (worstAdded > HEARTBEAT_LIMIT_MS)
      failures.push(`a heartbeat GET through the guard waited ${Math.round(worstAdded)} ms longer than a bare one beside it (limit ${HEARTBEAT_LIMIT_MS} ms)`);
    assert.deepEqual(failures, [], `replay with FOGBANK_FUZZ_SEED=${seed} FOGBANK_FUZZ_REQUESTS=${requests}`);
    assert.ok(next >= requests, `the guard lane ran ${next} requests`);
  });
}
