// The compiler side of the plugin protocol: build requests, run plugins, apply responses as protoc does.
export { COMPAT_MODES, isCompatMode, type CompatMode } from './compat.ts';
export { DEFAULT_COMPILER_VERSIONS, parseCompilerVersion, type CompilerVersion } from './compiler-version.ts';
export { HostError } from './errors.ts';
export { cEscape } from './c-escape.ts';
export { protocInsert, bufInsert, type InsertResult } from './insert-content.ts';
export { OutputContext, type OpenStream } from './output-context.ts';
export { readResponse, type PluginResponse, type ResponseFile } from './response-reader.ts';
export { execPlugin, inProcessPlugin, type PluginInvoker, type PluginOutcome } from './plugin-process.ts';
export { buildRequest, jsonName, orderProtoFiles, type RequestSource } from './request.ts';
export {
  normaliseLocation,
  runGenerators,
  type GeneratorDirective,
  type GeneratorRun,
  type GeneratorRunResult,
} from './run-generators.ts';
export { checkContext, writeContexts, type WriteOptions } from './write-tree.ts';
export { HOST_USAGE, runHostCommand, type HostIo } from './command-line.ts';
export { runInMemory, type InMemoryGenerator, type InMemoryRunOptions, type InMemoryRunResult } from './in-memory.ts';
