import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { BARE_SERVER, startProcess } from '../../src/testing/server-process.ts';
import { judgeStalls, type ProbeRecord, type ProbeSample, type Stall, worstWait } from './stall-judge.ts';

/** ProbeResult is what the concurrent /healthz probe saw, beside the heartbeat's. */
export interface ProbeResult {
  readonly probes: number;
  /** The longest any one fogbank probe waited for its answer, in milliseconds. */
  readonly worstMs: number;
  /** The longest any one heartbeat probe waited: how long the machine paused a bare server. */
  readonly heartbeatWorstMs: number;
  /** fogbank's probes that waited over the limit of their own (stall-judge.ts). */
  readonly stalls: readonly Stall[];
}

/** PROBE_INTERVAL_MS is the pause between probes. */
const PROBE_INTERVAL_MS = 100;

/** TICK_MS is one clock tick of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/**
 * cpuTimeMs is the user + system CPU time of a process's main thread, the one its event loop
 * runs on (not the worker threads that decode large bodies beside it), from
 * /proc/PID/task/PID/stat; undefined where there is no /proc or no such process.
 */
function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // After the command in parentheses: state ppid … utime (14th field) stime (15th).
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/**
 * processCpuMs is the user + system CPU time of a whole process, all its threads (the workers that
 * decode large bodies too), from /proc/PID/stat; undefined where there is no /proc or no such process.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** machineIdleMs is the idle and I/O-wait time of all the machine's cores together since boot, from /proc/stat; undefined without it. */
export function machineIdleMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    // cpu  user nice system idle iowait irq softirq …
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== 'cpu') return undefined;
    return (Number(fields[4]) + Number(fields[5])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** ProbeTarget is a server to probe: its port, and its process (for its CPU time) when it is one of ours. */
interface ProbeTarget {
  readonly port: () => number;
  readonly pid: () => number | undefined;
}

/** probeLoop asks `path` over its own keep-alive connection, one probe after another, PROBE_INTERVAL_MS apart, until stopped. */
function probeLoop(target: ProbeTarget, path: string): { stop(): Promise<ProbeRecord> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: ProbeSample[] = [];
  const startedAt = performance.now();
  let running = true;
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const sentAt = performance.now();
      const pid = target.pid();
      const cpuBefore = cpuTimeMs(pid);
      const done = (): void => {
        const answeredAt = performance.now();
        const cpuAfter = pid === target.pid() ? cpuTimeMs(pid) : undefined;
        const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
        samples.push({ sentAt, answeredAt, ...(cpuMs === undefined ? {} : { cpuMs }) });
        resolve();
      };
      const probe = request({ host: '127.0.0.1', port: target.port(), path, agent }, (response) => {
        response.resume();
        response.on('end', done);
      });
      probe.on('error', done);
      probe.end();
    });
  const loop = (async () => {
    while (running) {
      await once();
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return { startedAt, intervalMs: PROBE_INTERVAL_MS, samples };
    },
  };
}

/**
 * startHealthProbe probes fogbank's /healthz while the fuzz run goes on, and beside it, the same
 * way, a bare node:http heartbeat server in a process of its own (the benches' baseline,
 * src/testing/bare-http-server.mjs): a request that blocks fogbank's event loop shows up as a
 * fogbank probe that waited that long, and a busy machine as both waiting. Each fogbank probe
 * also reads the CPU time fogbank's main thread (`server.pid`) used meanwhile. `stop` ends both
 * loops (the heartbeat's last, so it covers fogbank's last probe) and judges the difference
 * (stall-judge.ts) against `limitMs`. `server` is read at each probe, for a server that is
 * restarted under the probe.
 */
export async function startHealthProbe(
  server: { readonly port: number; readonly pid: number | undefined },
  limitMs: number,
): Promise<{ stop(): Promise<ProbeResult> }> {
  const heartbeat = await startProcess(BARE_SERVER);
  const heartbeatPort = Number(new URL(heartbeat.url).port);
  const heartbeatLoop = probeLoop({ port: () => heartbeatPort, pid: () => heartbeat.child.pid }, '/healthz');
  const fogbankLoop = probeLoop({ port: () => server.port, pid: () => server.pid }, '/healthz');
  return {
    async stop() {
      const fogbank = await fogbankLoop.stop();
      const beside = await heartbeatLoop.stop();
      await heartbeat.stop();
      return {
        probes: fogbank.samples.length,
        worstMs: worstWait(fogbank),
        heartbeatWorstMs: worstWait(beside),
        stalls: judgeStalls(fogbank, beside, limitMs),
      };
    },
  };
}
