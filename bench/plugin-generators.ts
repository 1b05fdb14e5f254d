// bench/plugin-generators.ts times TypeScript generators on googleapis' compute.proto (3.96 MB,
// 993 rpcs), each run by the same protoc (npm protoc 36.2) in one process tree, and prints wall
// times and ratios to protoc-gen-fogbank. protoc alone (a descriptor set) is the floor.
// Run: npx tsx bench/plugin-generators.ts [fogbank|es|ts-proto|protobuf-ts ...]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PROTOC = join(REPO, 'node_modules/protoc-newest/bin/protoc-linux-x86_64');
const INCLUDES = [join(REPO, '../shared/testdata/protos'), join(REPO, 'node_modules/protoc-newest/include')];
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

interface Result {
  readonly label: string;
  readonly seconds: number;
  readonly files: number;
  readonly bytes: number;
}

function treeSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

function time(label: string, args: readonly string[], out: string): Result {
  mkdirSync(out, { recursive: true });
  const started = performance.now();
  const r = spawnSync(PROTOC, [...INCLUDES.map((i) => `-I${i}`), ...args, PROTO], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`${label} failed (${r.status}): ${r.stderr}`);
  return { label, seconds, ...treeSize(out) };
}

const wanted = new Set(process.argv.slice(2));
for (const key of wanted) {
  if (!GENERATORS.some((g) => g.key === key)) throw new Error(`unknown generator ${key}; known: ${GENERATORS.map((g) => g.key).join(', ')}`);
}
if (!existsSync(PROTOC)) throw new Error(`missing ${PROTOC}: run npm ci`);
const work = mkdtempSync(join(tmpdir(), 'fogbank-bench-plugins-'));
try {
  const results: Result[] = [
    time('protoc alone (descriptor set)', [`--descriptor_set_out=${join(work, 'set.pb')}`, '--include_imports', '--include_source_info'], join(work, 'set')),
  ];
  for (const g of GENERATORS) {
    if (wanted.size > 0 && !wanted.has(g.key)) continue;
    process.stderr.write(`running ${g.label}…\n`);
    results.push(time(g.label, g.args(join(work, g.key)), join(work, g.key)));
  }
  const fogbank = results.find((r) => r.label.startsWith('protoc-gen-fogbank'));
  const others = results.filter((r) => r !== fogbank && !r.label.startsWith('protoc alone'));
  console.log(`compute.proto generation, wall time including protoc (${process.platform}, node ${process.version})`);
  console.log('generator'.padEnd(36) + 'seconds'.padStart(9) + 'files'.padStart(7) + 'MB'.padStart(8) + '  ×fogbank');
  for (const r of results) {
    const ratio = fogbank && others.includes(r) ? `${(r.seconds / fogbank.seconds).toFixed(1)}×` : '';
    console.log(r.label.padEnd(36) + r.seconds.toFixed(2).padStart(9) + String(r.files).padStart(7) + (r.bytes / 1e6).toFixed(2).padStart(8) + '  ' + ratio);
  }
  if (fogbank && others.length > 0) {
    const fastest = others.reduce((a, b) => (a.seconds <= b.seconds ? a : b));
    console.log(`fastest other generator: ${fastest.label}, ${(fastest.seconds / fogbank.seconds).toFixed(1)}× slower than protoc-gen-fogbank (target ≥ 10×)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
