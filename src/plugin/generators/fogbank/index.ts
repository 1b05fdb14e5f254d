// protoc-gen-fogbank: proto3 JSON types and typed REST clients for TypeScript.
export { fogbankPlugin, FOGBANK_VERSION } from './plugin.ts';
export { FOGBANK_PARAMETERS, parseFogbankOptions, type FogbankOptions } from './options.ts';
export { outputName } from './file-emitter.ts';
export { parsePathTemplate, variablePattern, isMultiSegment, TemplateError, type PathTemplate, type TemplateVariable } from './path-template.ts';
export { REST_RUNTIME_FILE, REST_RUNTIME_SOURCE } from './rest-runtime.ts';
