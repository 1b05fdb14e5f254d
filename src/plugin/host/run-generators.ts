import type { FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { hasProto3Optional } from '../runtime/editions.ts';
import { cEscape } from './c-escape.ts';
import type { CompatMode } from './compat.ts';
import type { CompilerVersion } from './compiler-version.ts';
import { featureProblems } from './feature-check.ts';
import { OutputContext, type OpenStream } from './output-context.ts';
import type { PluginInvoker } from './plugin-process.ts';
import { buildRequest } from './request.ts';
import { readResponse, type PluginResponse } from './response-reader.ts';

/** GeneratorDirective is one `--NAME_out=[PARAM:]LOCATION` with its `--NAME_opt` values joined. */
export interface GeneratorDirective {
  /** flag is the option as written, e.g. `--a_out`; protoc prefixes its messages with it. */
  readonly flag: string;
  /** pluginName is `protoc-gen-NAME`, used inside protoc's messages. */
  readonly pluginName: string;
  /** displayName names the plugin in buf's messages: the program path when one was given. */
  readonly displayName?: string;
  readonly invoke: PluginInvoker;
  readonly parameter: string;
  /** location is the output location exactly as written. */
  readonly location: string;
}

/** GeneratorRun is everything a run of generators needs; no disk access happens here. */
export interface GeneratorRun {
  /** protoFiles are in protoc's request order (see orderProtoFiles). */
  readonly protoFiles: readonly FileDescriptorProto[];
  readonly filesToGenerate: readonly string[];
  readonly generators: readonly GeneratorDirective[];
  readonly compat: CompatMode;
  /** compilerVersion is the request's compiler_version; undefined sends none (compiler-version.ts has each mode's default). */
  readonly compilerVersion: CompilerVersion | undefined;
  readonly stderr: (text: string) => void;
}

/** GeneratorRunResult is the in-memory trees per location, or `ok: false` when the run aborted. */
export interface GeneratorRunResult {
  readonly ok: boolean;
  /** contexts are in order of first use; generators with equal locations share one. */
  readonly contexts: readonly OutputContext[];
}

/**
 * normaliseLocation is protoc's key for output contexts: a trailing `/` unless the location is
 * an archive. `out` and `out/` share a context; `out` and `./out` do not.
 */
export function normaliseLocation(location: string): string {
  if (/\.(zip|jar|srcjar)$/.test(location) || location.endsWith('/')) return location;
  return `${location}/`;
}

/**
 * runGenerators runs the plugins in command-line order and applies their responses to
 * per-location in-memory trees with protoc's (or buf's) semantics. A plugin failure aborts the
 * run at once: nothing from any plugin will be written.
 */
export async function runGenerators(run: GeneratorRun): Promise<GeneratorRunResult> {
  const contexts = new Map<string, OutputContext>();
  const wanted = new Set(run.filesToGenerate);
  const generated = run.protoFiles.filter((f) => wanted.has(f.name));
  for (const directive of run.generators) {
    const key = normaliseLocation(directive.location);
    let context = contexts.get(key);
    if (context === undefined) {
      context = new OutputContext(key, run.compat, run.stderr);
      contexts.set(key, context);
    }
    const error = await generateOne(run, directive, generated, context);
    if (error !== undefined) {
      run.stderr(error);
      return { ok: false, contexts: [...contexts.values()] };
    }
  }
  return { ok: true, contexts: [...contexts.values()] };
}

// Returns the text to print when the run must stop, undefined when it may go on.
async function generateOne(
  run: GeneratorRun,
  d: GeneratorDirective,
  files: readonly FileDescriptorProto[],
  context: OutputContext,
): Promise<string | undefined> {
  const buf = run.compat === 'buf';
  // protoc 24+ and buf 1.75 send source_file_descriptors (observed); protoc 3.21 does not.
  const request = buildRequest(run.protoFiles, run.filesToGenerate, d.parameter, run.compat !== 'protoc-legacy', run.compilerVersion);
  const outcome = await d.invoke(request, run.stderr);
  const bufName = d.displayName ?? d.pluginName;
  if (outcome.kind === 'signal') {
    return buf
      ? `Failure: plugin ${bufName}: signal: ${goSignalName(outcome.signal)}\n`
      : `${d.flag}: ${d.pluginName}: Plugin killed by signal ${outcome.signal}.\n`;
  }
  if (outcome.code !== 0) {
    return buf ? `Failure: plugin ${bufName}: exit status ${outcome.code}\n` : `${d.flag}: ${d.pluginName}: Plugin failed with status code ${outcome.code}.\n`;
  }
  let response: PluginResponse;
  try {
    response = readResponse(outcome.stdout);
  } catch {
    // Go's protobuf puts a no-break space after "proto:" in buf 1.75's build (its detrand).
    return buf
      ? `Failure: plugin ${bufName}: wire unmarshal: proto:\u00a0cannot parse invalid wire-format data\n`
      : `${d.flag}: ${d.pluginName}: Plugin output is unparseable: ${cEscape(outcome.stdout)}\n`;
  }
  if (buf) return applyBuf(bufName, response, files, context, run.stderr);
  return applyProtoc(run.compat, d, response, files, context);
}

function applyProtoc(
  mode: CompatMode,
  d: GeneratorDirective,
  response: PluginResponse,
  files: readonly FileDescriptorProto[],
  context: OutputContext,
): string | undefined {
  let current: OpenStream | undefined;
  for (const f of response.files) {
    if (f.insertionPoint !== '' || f.name !== '') {
      if (current) context.close(current);
      current = { name: f.name, insertionPoint: f.insertionPoint, info: f.generatedCodeInfo, chunks: [], generator: d.pluginName };
    } else if (current === undefined) {
      return `${d.flag}: ${d.pluginName}: First file chunk returned by plugin did not specify a file name.\n`;
    }
    current.chunks.push(Buffer.from(f.content));
  }
  if (mode === 'protoc-legacy') {
    // protoc before 28 reports response.error alone and closes the last chunk afterwards.
    let failure: string | undefined;
    if (response.error !== '') failure = response.error;
    else {
      const problems = featureProblems(files, response, d.pluginName, mode);
      if (problems.length > 0) {
        context.report(problems.join(''));
        failure = '';
      }
    }
    if (current) context.close(current);
    return failure === undefined ? undefined : `${d.flag}: ${failure}\n`;
  }
  if (current) context.close(current);
  const problems = featureProblems(files, response, d.pluginName, mode);
  if (problems.length > 0) context.report(problems.join(''));
  if (problems.length > 0 || response.error !== '') return `${d.flag}: ${response.error}\n`;
  return undefined;
}

function applyBuf(
  name: string,
  response: PluginResponse,
  files: readonly FileDescriptorProto[],
  context: OutputContext,
  stderr: (text: string) => void,
): string | undefined {
  if (response.error !== '') return `Failure: plugin ${name}: ${response.error}\n`;
  let current: OpenStream | undefined;
  const streams: OpenStream[] = [];
  for (const f of response.files) {
    if (f.name === '') {
      if (current === undefined) return `Failure: plugin ${name}: CodeGeneratorResponse: file: first value had no name set\n`;
      if (f.insertionPoint !== '') {
        return `Failure: plugin ${name}: CodeGeneratorResponse: file: empty name with non-empty insertion point\n`;
      }
    } else {
      const problem = bufNameProblem(f.name);
      if (problem !== undefined) return `Failure: plugin ${name}: CodeGeneratorResponse: file: ${problem}\n`;
      current = { name: f.name, insertionPoint: f.insertionPoint, info: f.generatedCodeInfo, chunks: [], generator: name };
      streams.push(current);
    }
    current.chunks.push(Buffer.from(f.content));
  }
  if ((response.supportedFeatures & 1n) === 0n) {
    const needing = files.filter(hasProto3Optional);
    if (needing.length > 0) {
      stderr(
        `WARN\tplugin "${name}" does not support required features.\n  Feature "proto3 optional" is required by ${needing.length} file(s):\n` +
          needing.map((f) => `    ${f.name}\n`).join(''),
      );
    }
  }
  const editionsFile = files.find((f) => f.syntax === 'editions');
  if (editionsFile !== undefined && (response.supportedFeatures & 2n) === 0n) {
    return `Failure: plugin "${name}" does not support feature "supports editions" which is required by "${editionsFile.name}"\n`;
  }
  const seen = new Set<string>();
  for (const s of streams) {
    if (s.insertionPoint === '') {
      if (seen.has(s.name)) {
        stderr(
          `duplicate generated file name "${s.name}". Generation will continue without error here and drop the second occurrence of this file, but please raise an issue with the maintainer of the plugin.\n`,
        );
        continue;
      }
      seen.add(s.name);
    }
  }
  seen.clear();
  for (const s of streams) {
    if (s.insertionPoint === '' && seen.has(s.name)) continue;
    if (s.insertionPoint === '') seen.add(s.name);
    context.close(s);
    // buf stops at its first failure; the context has printed it.
    if (context.hadError) return '';
  }
  return undefined;
}

// Go's names for the signals a plugin is usually killed by, as buf prints them.
function goSignalName(signal: number): string {
  const names: Record<number, string> = {
    1: 'hangup',
    2: 'interrupt',
    6: 'aborted',
    9: 'killed',
    11: 'segmentation fault',
    13: 'broken pipe',
    15: 'terminated',
  };
  return names[signal] ?? `signal ${signal}`;
}

// buf's protoplugin validation of response file names.
function bufNameProblem(name: string): string | undefined {
  if (name.startsWith('/')) return `path "${name}" should be relative`;
  if (name.split('/').includes('..')) return `path "${name}" should not jump context`;
  return undefined;
}
