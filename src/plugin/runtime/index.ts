// The plugin side of the protoc plugin protocol: decode a request, run a generator, encode a response.
export { invalidDescriptor, PluginError, PluginParameterError, PluginProtocolError } from './errors.ts';
export type { EditionRange, GeneratedFile, GenerateInput, Plugin, PluginFeatures } from './plugin.ts';
export { fileNameProblem } from './file-name.ts';
export { insertionPointMarker } from './insertion-point.ts';
export { parseParameters, type ParameterSpec, type ParameterSpecs, type ParsedParameters } from './parameters.ts';
export { editionName, fileEdition, hasProto3Optional } from './editions.ts';
export { decodeRequest, generateResponse, runPlugin } from './run-plugin.ts';
export { runNodePlugin, type PluginIo } from './run-node.ts';
export { commentsFromDescriptor, decodeSourceComments, type SourceComment, type SourceComments } from './source-comments.ts';
