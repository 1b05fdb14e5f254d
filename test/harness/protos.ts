// Helpers of the plugin e2e tests: real protoc binaries from npm, googleapis protos from
// devDependencies, descriptor sets, temporary trees, and a protoc-gen-fogbank executable that runs the TypeScript source.
import { spawnSync } from 'node:child_process';
import { create, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorResponseSchema, GeneratedCodeInfoSchema } from '@bufbuild/protobuf/wkt';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clientPath } from './clients.ts';
import { REPO } from './paths.ts';
import { tempDir } from '../../src/testing/temp.ts';

export { clientPath, REPO, tempDir };

/** FIXTURE_PROTOS holds the plugin test protos. */
export const FIXTURE_PROTOS = join(REPO, 'test/fixtures/protos');
/** COMPUTE_PROTO is googleapis' compute.proto, by its import name. */
export const COMPUTE_PROTO = 'google/cloud/compute/v1/compute.proto';

/** PROTOC names the two npm protoc packages the parity tests run: 3.21.0 and 36.2, for this platform. */
export const PROTOC = {
  get oldest(): string {
    return clientPath('protoc-oldest');
  },
  get newest(): string {
    return clientPath('protoc');
  },
} as const;

/** PROTOC_INCLUDE is the WKT include directory shipped with the newest protoc package. */
export const PROTOC_INCLUDE = join(REPO, 'node_modules/protoc-newest/include');

/**
 * GOOGLEAPIS_SOURCES are where the official protos ship in devDependencies: compute.proto and
 * extended_operations.proto in @google-cloud/compute, google/api/*.proto in google-gax.
 */
const GOOGLEAPIS_SOURCES = [join(REPO, 'node_modules/@google-cloud/compute/build/protos'), join(REPO, 'node_modules/google-gax/build/protos')];

let googleapisRoot: string | undefined;

/**
 * googleapisProtos returns one include directory holding compute.proto and exactly the files it
 * imports (google/protobuf/* aside, which come with protoc), copied from devDependencies into a
 * harness-owned temporary directory once per test process.
 */
export function googleapisProtos(): string {
  if (googleapisRoot !== undefined) return googleapisRoot;
  const root = tempDir('googleapis');
  const pending = [COMPUTE_PROTO];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name) || name.startsWith('google/protobuf/')) continue;
    seen.add(name);
    const source = GOOGLEAPIS_SOURCES.map((dir) => join(dir, name)).find((file) => existsSync(file));
    if (source === undefined) throw new Error(`${name} is in none of ${GOOGLEAPIS_SOURCES.join(', ')}: run npm ci`);
    const text = readFileSync(source, 'utf8');
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
    for (const match of text.matchAll(/^import\s+(?:public\s+|weak\s+)?"([^"]+)";/gm)) pending.push(match[1]!);
  }
  googleapisRoot = root;
  return root;
}

/** RUN_TIMEOUT_MS bounds one protoc, buf, plugin or tsc run. */
const RUN_TIMEOUT_MS = 180_000;

/** run runs a command and returns its status and output; it never throws on failure. */
export function run(cmd: string, args: readonly string[], cwd: string, input?: Uint8Array) {
  const r = spawnSync(cmd, args, { cwd, input, maxBuffer: 1 << 30, timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, signal: r.signal, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** descriptorSet compiles protos with the newest protoc into a descriptor set file and returns its path. */
export function descriptorSet(files: readonly string[], dir: string, includes: readonly string[] = [FIXTURE_PROTOS]): string {
  const out = join(dir, 'schema.pb');
  const args = [...includes.map((i) => `-I${i}`), `-I${PROTOC_INCLUDE}`, `--descriptor_set_out=${out}`, '--include_imports', '--include_source_info', ...files];
  const r = run(PROTOC.newest, args, dir);
  if (r.status !== 0) throw new Error(`protoc failed: ${r.stderr}`);
  return out;
}

/**
 * fogbankPluginExecutable writes an executable that runs protoc-gen-fogbank from src/ through
 * tsx, so tests never pick up a stale dist/ build.
 */
export function fogbankPluginExecutable(dir: string): string {
  const path = join(dir, 'protoc-gen-fogbank');
  const loader = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
  writeFileSync(path, `#!/bin/sh\nexec node --import ${loader} ${join(REPO, 'src/cli/protoc-gen-fogbank.ts')} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** readTree returns every file under dir as relative path → bytes (base64), sorted. */
export function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p).toString('base64');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** STRICT_TSCONFIG is the strictest compile the generated code must pass. */
export const STRICT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: [],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noPropertyAccessFromIndexSignature: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noEmit: true,
  },
  include: ['**/*.ts'],
};

/** typecheck runs `tsc --strict` (STRICT_TSCONFIG) over a generated tree and returns tsc's output and status. */
export function typecheck(dir: string) {
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(STRICT_TSCONFIG, null, 2));
  return run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
}

/** Chunk is one canned CodeGeneratorResponse.File. */
export interface Chunk {
  readonly name?: string;
  readonly ip?: string;
  readonly content?: string;
  readonly info?: readonly { begin: number; end: number; path: number[] }[];
}
/** ReplayPlugin is a scripted plugin: a canned response, exit status, stderr or signal. */
export interface ReplayPlugin {
  readonly name: string;
  readonly out: string;
  readonly param?: string;
  readonly error?: string;
  readonly features?: number;
  readonly minEdition?: number;
  readonly maxEdition?: number;
  readonly files?: readonly Chunk[];
  /** raw replaces the encoded response on stdout. */
  readonly raw?: Uint8Array;
  readonly exit?: number;
  readonly stderr?: string;
  readonly signal?: NodeJS.Signals;
  /** missing runs a plugin path that does not exist (`true`) or relies on PATH (`'path'`). */
  readonly missing?: true | 'path';
}
/** encodeResponse encodes the canned response (features default to proto3 optional + editions 2023). */
export function encodeResponse(p: ReplayPlugin): Uint8Array {
  if (p.raw) return p.raw;
  const response = create(CodeGeneratorResponseSchema, {
    error: p.error ?? '',
    supportedFeatures: BigInt(p.features ?? 3),
    file: (p.files ?? []).map((f) => ({
      name: f.name ?? '',
      insertionPoint: f.ip ?? '',
      content: f.content ?? '',
      ...(f.info ? { generatedCodeInfo: create(GeneratedCodeInfoSchema, { annotation: f.info.map((a) => ({ ...a, sourceFile: 'x.proto' })) }) } : {}),
    })),
  });
  if ((p.features ?? 3) & 2) {
    response.minimumEdition = p.minEdition ?? 998;
    response.maximumEdition = p.maxEdition ?? 1000;
  }
  return toBinary(CodeGeneratorResponseSchema, response);
}

/** writeReplayPlugin writes an executable (plain Node) that reads stdin to the end, then replays the canned outcome. */
export function writeReplayPlugin(dir: string, p: ReplayPlugin): string {
  const bytes = join(dir, `${p.name}.bin`);
  writeFileSync(bytes, encodeResponse(p));
  const script = join(dir, `protoc-gen-${p.name}`);
  writeFileSync(
    script,
    `#!/usr/bin/env node
const fs = require('fs');
process.stdin.resume();
process.stdin.on('end', () => {
  ${p.stderr ? `process.stderr.write(${JSON.stringify(p.stderr)});` : ''}
  fs.writeSync(1, fs.readFileSync(${JSON.stringify(bytes)}));
  ${p.signal ? `process.kill(process.pid, ${JSON.stringify(p.signal)});` : ''}
  process.exitCode = ${p.exit ?? 0};
});
`,
  );
  chmodSync(script, 0o755);
  return script;
}
