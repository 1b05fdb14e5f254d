import { posix } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { Plugin } from '../runtime/plugin.ts';
import type { CompatMode } from './compat.ts';
import { DEFAULT_COMPILER_VERSIONS, type CompilerVersion } from './compiler-version.ts';
import { inProcessPlugin, type PluginInvoker } from './plugin-process.ts';
import { orderProtoFiles } from './request.ts';
import { runGenerators } from './run-generators.ts';
import { checkContext } from './write-tree.ts';

/** InMemoryGenerator is one generator of an in-memory run, like one `--NAME_out` flag. */
export interface InMemoryGenerator {
  /** plugin is a runtime Plugin (run in-process) or any invoker, e.g. execPlugin(path). */
  readonly plugin: Plugin | PluginInvoker;
  /** name is NAME of `--NAME_out`; defaults to the plugin's name without `protoc-gen-`. */
  readonly name?: string;
  readonly parameter?: string;
  /** out is the output location; generators with the same `out` can insert into each other. */
  readonly out?: string;
}

/** InMemoryRunOptions describes a whole host run without touching disk. */
export interface InMemoryRunOptions {
  /** schema is a serialized FileDescriptorSet or its files. */
  readonly schema: Uint8Array | readonly FileDescriptorProto[];
  readonly filesToGenerate: readonly string[];
  readonly generators: readonly InMemoryGenerator[];
  readonly compat?: CompatMode;
  /** compilerVersion overrides the compat mode's compiler_version; null sends none. */
  readonly compilerVersion?: CompilerVersion | null;
}

/** InMemoryRunResult is what protoc would have printed, exited with and written. */
export interface InMemoryRunResult {
  readonly exitCode: number;
  readonly stderr: string;
  /** files maps `out/name` (or just `name` for the default location) to the file text. */
  readonly files: ReadonlyMap<string, string>;
}

/**
 * runInMemory runs generators exactly as `fogbank protoc` would, with the same insertion and
 * error semantics, and returns the tree instead of writing it: the way to unit-test a plugin.
 */
export async function runInMemory(options: InMemoryRunOptions): Promise<InMemoryRunResult> {
  const compat = options.compat ?? 'protoc';
  const stderr: string[] = [];
  const report = (text: string) => void stderr.push(text);
  const files = options.schema instanceof Uint8Array ? fromBinary(FileDescriptorSetSchema, options.schema).file : options.schema;
  const result = await runGenerators({
    protoFiles: orderProtoFiles({ files, filesToGenerate: options.filesToGenerate }),
    filesToGenerate: options.filesToGenerate,
    compat,
    compilerVersion: options.compilerVersion === undefined ? DEFAULT_COMPILER_VERSIONS[compat] : (options.compilerVersion ?? undefined),
    stderr: report,
    generators: options.generators.map((g) => {
      const isPlugin = typeof g.plugin !== 'function';
      const name = g.name ?? (isPlugin ? (g.plugin as Plugin).name.replace(/^protoc-gen-/, '') : 'plugin');
      return {
        flag: `--${name}_out`,
        pluginName: `protoc-gen-${name}`,
        invoke: isPlugin ? inProcessPlugin(g.plugin as Plugin) : (g.plugin as PluginInvoker),
        parameter: g.parameter ?? '',
        location: g.out ?? '.',
      };
    }),
  });
  const out = new Map<string, string>();
  let exitCode = result.ok ? 0 : 1;
  if (result.ok) {
    for (const context of [...result.contexts].reverse()) {
      const names = checkContext(context, compat, report);
      if (names === undefined) {
        exitCode = 1;
        out.clear();
        break;
      }
      for (const name of names) {
        const key = context.location === './' ? name : posix.join(context.location, name);
        out.set(key, (context.files.get(name) ?? Buffer.alloc(0)).toString('utf8'));
      }
    }
  }
  return { exitCode, stderr: stderr.join(''), files: out };
}
