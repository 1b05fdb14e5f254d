import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { Plugin } from '../runtime/plugin.ts';
import { COMPAT_MODES, isCompatMode, type CompatMode } from './compat.ts';
import { DEFAULT_COMPILER_VERSIONS, parseCompilerVersion, type CompilerVersion } from './compiler-version.ts';
import { HostError } from './errors.ts';
import { execPlugin, inProcessPlugin } from './plugin-process.ts';
import { orderProtoFiles } from './request.ts';
import { runGenerators, type GeneratorDirective } from './run-generators.ts';
import { writeContexts } from './write-tree.ts';

/** HostIo is the process surface of the host command; tests capture it in memory. */
export interface HostIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** builtins are plugins run in-process for `--NAME_out` when no `--plugin` names NAME. */
  readonly builtins?: Readonly<Record<string, Plugin>>;
}

/** HOST_USAGE is the `--help` text of `fogbank protoc`. */
export const HOST_USAGE = `Usage: fogbank protoc [OPTIONS] PROTO_FILES
Runs protoc plugins on an already compiled schema and writes their output as protoc does.
  --descriptor_set_in=FILES   FileDescriptorSets (':'-separated), e.g. from
                              protoc --descriptor_set_out --include_imports --include_source_info
                              or buf build -o
  --NAME_out=[PARAM:]DIR      run protoc-gen-NAME, writing into DIR
  --NAME_opt=OPTION           add OPTION to protoc-gen-NAME's parameter
  --plugin=protoc-gen-NAME=PATH | --plugin=PATH
                              use the executable PATH for NAME
  --compat=${COMPAT_MODES.join('|')}
                              whose response handling to reproduce (default protoc)
  --compiler_version=MAJOR.MINOR.PATCH[-SUFFIX] | none
                              the request's compiler_version (default: what the
                              --compat compiler sends: 7.36.2, 3.21.0, none for buf)
  --version                   print the version and exit
`;

interface ParsedCommand {
  readonly descriptorSets: string[];
  readonly outs: { name: string; flag: string; parameter: string; location: string }[];
  readonly opts: Map<string, string[]>;
  readonly plugins: Map<string, string>;
  readonly files: string[];
  compat: CompatMode;
  /** compilerVersion is `--compiler_version` as given: null for `none`, undefined for the mode's default. */
  compilerVersion: CompilerVersion | null | undefined;
}

/**
 * runHostCommand is `fogbank protoc`: parse protoc-style arguments, build the request from a
 * descriptor set, run the plugins in order and write the trees. Resolves to the exit code.
 */
export async function runHostCommand(argv: readonly string[], io: HostIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    const result = parseArguments(argv);
    if (typeof result === 'string') {
      io.stdout(result);
      return 0;
    }
    parsed = result;
  } catch (err) {
    if (!(err instanceof HostError)) throw err;
    io.stderr(`${err.message}\n`);
    return 1;
  }
  let protoFiles: FileDescriptorProto[];
  try {
    protoFiles = orderProtoFiles({ files: loadDescriptorSets(parsed.descriptorSets, io.cwd), filesToGenerate: parsed.files });
  } catch (err) {
    if (!(err instanceof HostError)) throw err;
    io.stderr(`${err.message}\n`);
    return 1;
  }
  const generators: GeneratorDirective[] = parsed.outs.map((out) => {
    const pluginName = `protoc-gen-${out.name}`;
    const path = parsed.plugins.get(pluginName);
    const builtin = io.builtins?.[out.name];
    const parameter = [out.parameter, ...(parsed.opts.get(out.name) ?? [])].filter((p) => p !== '').join(',');
    return {
      flag: out.flag,
      pluginName,
      displayName: path ?? pluginName,
      invoke: path === undefined && builtin !== undefined ? inProcessPlugin(builtin) : execPlugin(path ?? pluginName),
      parameter,
      location: out.location,
    };
  });
  const result = await runGenerators({
    protoFiles,
    filesToGenerate: parsed.files,
    generators,
    compat: parsed.compat,
    compilerVersion: parsed.compilerVersion === undefined ? DEFAULT_COMPILER_VERSIONS[parsed.compat] : (parsed.compilerVersion ?? undefined),
    stderr: io.stderr,
  });
  if (!result.ok) return 1;
  return writeContexts(result.contexts, { cwd: io.cwd, compat: parsed.compat, stderr: io.stderr }) ? 0 : 1;
}

function parseArguments(argv: readonly string[]): ParsedCommand | string {
  const parsed: ParsedCommand = {
    descriptorSets: [],
    outs: [],
    opts: new Map(),
    plugins: new Map(),
    files: [],
    compat: 'protoc',
    compilerVersion: undefined,
  };
  for (const arg of argv) {
    if (!arg.startsWith('-')) {
      parsed.files.push(arg);
      continue;
    }
    if (arg === '--help' || arg === '-h') return HOST_USAGE;
    if (arg === '--version') return 'fogbank protoc (protoc-compatible plugin host)\n';
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) throw new HostError(`Missing value for flag: ${flag}`);
    if (flag === '--descriptor_set_in') parsed.descriptorSets.push(...value.split(':').filter((v) => v !== ''));
    else if (flag === '--compat') {
      if (!isCompatMode(value)) throw new HostError(`Unknown --compat value: ${value} (expected ${COMPAT_MODES.join(', ')})`);
      parsed.compat = value;
    } else if (flag === '--compiler_version') parsed.compilerVersion = parseCompilerVersion(value) ?? null;
    else if (flag === '--plugin') {
      const at = value.indexOf('=');
      if (at < 0) parsed.plugins.set(value.slice(value.lastIndexOf('/') + 1), value);
      else parsed.plugins.set(value.slice(0, at), value.slice(at + 1));
    } else if (/^--\w+_out$/.test(flag)) {
      const colon = value.indexOf(':');
      parsed.outs.push({
        name: flag.slice(2, -4),
        flag,
        parameter: colon < 0 ? '' : value.slice(0, colon),
        location: colon < 0 ? value : value.slice(colon + 1),
      });
    } else if (/^--\w+_opt$/.test(flag)) {
      const name = flag.slice(2, -4);
      parsed.opts.set(name, [...(parsed.opts.get(name) ?? []), value]);
    } else throw new HostError(`Unknown flag: ${flag}`);
  }
  if (parsed.descriptorSets.length === 0) throw new HostError('Missing --descriptor_set_in.');
  if (parsed.files.length === 0) throw new HostError('Missing input file.');
  if (parsed.outs.length === 0) throw new HostError('Missing output directives.');
  return parsed;
}

function loadDescriptorSets(paths: readonly string[], cwd: string): FileDescriptorProto[] {
  const files: FileDescriptorProto[] = [];
  for (const path of paths) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(resolve(cwd, path));
    } catch {
      throw new HostError(`${path}: No such file or directory`);
    }
    try {
      files.push(...fromBinary(FileDescriptorSetSchema, bytes).file);
    } catch {
      throw new HostError(`${path}: Unable to parse.`);
    }
  }
  return files;
}
