// bench/plugin-generators.ts times TypeScript generators on googleapis' compute.proto (3.96 MB,
// 993 rpcs), each run by the same protoc (npm protoc 36.2) in one process tree: wall time of the
// whole protoc run, including protoc's own parse. protoc alone (writing a descriptor set with
// source info, the same parse and one output) is the floor and the baseline; rounds interleave
// protoc alone and every generator. Goals: protoc-gen-fogbank ≤ 2× protoc alone (issue 27); the
// fastest other generator ≥ 10× slower than protoc-gen-fogbank (written as fogbank ≤ 0.1× it).
// Run: node --import tsx bench/plugin-generators.ts [--rounds N] [--quick] [fogbank|es|ts-proto|protobuf-ts ...]
// (--quick, or naming generators, leaves the slow other generators out).
// The protos come from FOGBANK_TESTDATA (default: ../shared/testdata beside the repository).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Bench, type BenchMetric, interleaved, median, metricOf, ratioAtMost, runAlone } from './lib/report.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PROTOC = join(REPO, 'node_modules/protoc-newest/bin/protoc-linux-x86_64');
const TESTDATA = process.env['FOGBANK_TESTDATA'] ?? join(REPO, '../shared/testdata');
const INCLUDES = [join(TESTDATA, 'protos'), join(REPO, 'node_modules/protoc-newest/include')];
const PROTO = 'google/cloud/compute/v1/compute.proto';
const BIN = join(REPO, 'node_modules/.bin');

interface Generator {
  readonly key: string;
  readonly label: string;
  /** args are the protoc flags that run it into `out`. */
  readonly args: (out: string) => string[];
}

const GENERATORS: readonly Generator[] = [
  {
    key: 'fogbank',
    label: existsSync(join(REPO, 'dist/protoc-gen-fogbank.mjs')) ? 'protoc-gen-fogbank (dist)' : 'protoc-gen-fogbank (src via tsx)',
    args: (out) => [`--plugin=protoc-gen-fogbank=${join(REPO, 'bin/protoc-gen-fogbank.js')}`, `--fogbank_out=${out}`],
  },
  {
    key: 'es',
    label: 'protoc-gen-es (target=ts)',
    args: (out) => [`--plugin=protoc-gen-es=${join(BIN, 'protoc-gen-es')}`, `--es_out=${out}`, '--es_opt=target=ts'],
  },
  { key: 'ts-proto', label: 'ts-proto', args: (out) => [`--plugin=protoc-gen-ts_proto=${join(BIN, 'protoc-gen-ts_proto')}`, `--ts_proto_out=${out}`] },
  { key: 'protobuf-ts', label: 'protobuf-ts', args: (out) => [`--plugin=protoc-gen-ts=${join(BIN, 'protoc-gen-ts')}`, `--ts_out=${out}`] },
];

/** Timing is one protoc run: its wall time and the CPU time of its process tree (protoc and the plugin it waited for). */
interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

/** protocRun runs protoc once with the given flags into a fresh directory. */
function protocRun(label: string, args: (out: string) => string[], work: string): Timing {
  const out = mkdtempSync(join(work, 'out-'));
  mkdirSync(out, { recursive: true });
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const r = spawnSync(PROTOC, [...INCLUDES.map((i) => `-I${i}`), ...args(out), PROTO], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = (performance.now() - started) / 1000;
  const cpu = childrenCpuSeconds() - cpuBefore;
  if (r.status !== 0) throw new Error(`${label} failed (${r.status}): ${r.stderr}`);
  rmSync(out, { recursive: true, force: true });
  return { wall, cpu };
}

// cutime + cstime of /proc/self/stat: the CPU time of every reaped child and of the children
// they reaped (protoc waits for its plugin), in clock ticks of 1/100 s. Wall time on a loaded
// machine mostly measures the load; CPU time much less so.
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** bench times protoc alone and each generator, interleaved. */
export const bench: Bench = async ({ rounds, quick }) => {
  const named = process.argv.slice(2).filter((a) => GENERATORS.some((g) => g.key === a));
  const wanted = named.length > 0 ? new Set(named) : new Set(quick ? ['fogbank'] : GENERATORS.map((g) => g.key));
  wanted.add('fogbank');
  if (!existsSync(PROTOC)) throw new Error(`missing ${PROTOC}: run npm ci`);
  if (!existsSync(join(INCLUDES[0]!, PROTO))) throw new Error(`missing ${PROTO} under ${INCLUDES[0]}: set FOGBANK_TESTDATA`);
  const work = mkdtempSync(join(tmpdir(), 'fogbank-bench-plugins-'));
  try {
    const chosen = GENERATORS.filter((g) => wanted.has(g.key));
    // Each round runs protoc alone and every generator once; a run's CPU time is kept beside its wall time.
    const cpu = new Map<string, number[]>();
    const side = (label: string, args: (out: string) => string[]) => ({
      label,
      measure: async () => {
        const t = protocRun(label, args, work);
        cpu.set(label, [...(cpu.get(label) ?? []), t.cpu]);
        return t.wall;
      },
    });
    const alone = side('protoc alone', (out) => [`--descriptor_set_out=${join(out, 'set.pb')}`, '--include_imports', '--include_source_info']);
    const [protocAlone, fogbank, ...others] = await interleaved(rounds, [alone, ...chosen.map((g) => side(g.label, g.args))]);
    if (protocAlone === undefined || fogbank === undefined) throw new Error('no samples');
    const fogbankLabel = chosen[0]!.label;
    const metrics: BenchMetric[] = [
      metricOf({
        metric: 'compute.proto → TypeScript, protoc + protoc-gen-fogbank, wall',
        unit: 's',
        fogbank,
        baseline: { label: 'protoc alone', samples: protocAlone },
        goal: ratioAtMost(2, 'protoc alone'),
      }),
      metricOf({
        metric: 'compute.proto → TypeScript, protoc + protoc-gen-fogbank, CPU',
        unit: 's',
        fogbank: cpu.get(fogbankLabel)!,
        baseline: { label: 'protoc alone', samples: cpu.get('protoc alone')! },
        goal: ratioAtMost(2, 'protoc alone'),
        note: 'user+system time of protoc and its plugin; steadier than wall time on a loaded machine',
      }),
    ];
    const rest = chosen.slice(1);
    for (const [index, g] of rest.entries()) {
      metrics.push(
        metricOf({
          metric: `compute.proto → TypeScript, fogbank vs ${g.label}, wall`,
          unit: 's',
          fogbank,
          baseline: { label: g.label, samples: others[index]! },
        }),
      );
    }
    if (rest.length > 0) {
      const fastest = rest.reduce((a, b) => (median(others[rest.indexOf(a)]!) <= median(others[rest.indexOf(b)]!) ? a : b));
      metrics.push(
        metricOf({
          metric: `compute.proto → TypeScript, fogbank vs the fastest other (${fastest.label}), wall`,
          unit: 's',
          fogbank,
          baseline: { label: fastest.label, samples: others[rest.indexOf(fastest)]! },
          goal: ratioAtMost(0.1, fastest.label),
        }),
      );
    }
    return metrics;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
