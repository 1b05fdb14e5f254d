import type { FieldDescriptorProto, ServiceDescriptorProto } from '@bufbuild/protobuf/wkt';
import { insertionPointMarker, PluginError } from '../../runtime/index.ts';
import type { FileEmitter } from './file-emitter.ts';
import type { HttpBinding } from './http-rule.ts';
import { lowerFirst, safeMemberName, UniqueNames } from './names.ts';
import { isMultiSegment, type PathTemplate, parsePathTemplate, TemplateError, variablePattern } from './path-template.ts';
import type { MessageInfo } from './type-index.ts';

/**
 * emitService renders a fetch-based client class for the service's rpcs that have
 * `google.api.http` rules (streaming rpcs are skipped: they have no single JSON response).
 * Each method's bindings are a module constant, so a call only walks data. The class body
 * carries `service_scope:<full name>`. Returns false when no rpc had a rule.
 */
export function emitService(e: FileEmitter, service: ServiceDescriptorProto, path: readonly number[], out: string[]): boolean {
  const http = e.ctx.http;
  if (http === undefined) return false;
  const fullName = e.file.package === '' ? service.name : `${e.file.package}.${service.name}`;
  const methods: string[] = [];
  const constants: string[] = [];
  const memberNames = new UniqueNames();
  service.method.forEach((method, i) => {
    if (method.clientStreaming || method.serverStreaming) return;
    const bindings = http.bindings(method);
    if (bindings.length === 0) return;
    const where = `${e.file.name}: ${fullName}.${method.name}`;
    const input = e.ctx.index.message(method.inputType);
    const output = e.ctx.index.message(method.outputType);
    if (input === undefined || output === undefined) throw new PluginError(`${where}: request or response type is not a message`);
    const rest = e.restImport();
    const member = memberNames.claim(safeMemberName(lowerFirst(method.name)));
    const constName = `$${service.name}_${member}`;
    const literals = bindings.map((b) => bindingLiteral(e, where, b, input, output));
    const primary = bindings[0] as HttpBinding;
    const responseType = primary.responseBody === '' ? e.typeRef(method.outputType) : responseFieldType(e, where, output, primary.responseBody);
    constants.push(`const ${constName}: readonly ${rest}.Binding[] = [\n${literals.map((l) => `  ${l},\n`).join('')}];\n`);
    methods.push(
      e.doc([...path, 2, i], '  '),
      `  ${member}(request: ${e.typeRef(method.inputType)}, options?: ${rest}.CallOptions): Promise<${responseType}> {\n`,
      `    return this.#transport.call<${responseType}>(${JSON.stringify(`${fullName}/${method.name}`)}, request, ${constName}, options);\n`,
      '  }\n\n',
    );
  });
  if (methods.length === 0) return false;
  const className = e.ctx.index.claimName(e.file.name, `${service.name}Client`);
  out.push(
    e.doc(path, '', `${className} calls ${fullName} over HTTP/JSON (google.api.http).`),
    `export class ${className} {\n`,
    '  readonly #transport: $rest.Transport;\n\n',
    '  constructor(options: $rest.ClientOptions) {\n',
    '    this.#transport = $rest.createTransport(options);\n',
    '  }\n\n',
    ...methods,
    `  // ${insertionPointMarker(`service_scope:${fullName}`)}\n`,
    '}\n\n',
    ...constants,
    '\n',
  );
  return true;
}

function bindingLiteral(e: FileEmitter, where: string, b: HttpBinding, input: MessageInfo, output: MessageInfo): string {
  let template: PathTemplate;
  try {
    template = parsePathTemplate(b.path);
  } catch (err) {
    if (err instanceof TemplateError) throw new PluginError(`${where}: ${err.message}`);
    throw err;
  }
  const parts = template.parts.map((p) => {
    if (typeof p === 'string') return JSON.stringify(p);
    const field = jsonPath(e, where, input, p.fieldPath, b.path);
    return `{ field: ${JSON.stringify(field)}, pattern: ${JSON.stringify(variablePattern(p.segments))}, multi: ${isMultiSegment(p.segments)} }`;
  });
  let body = 'null';
  if (b.body === '*') body = '"*"';
  else if (b.body !== '') body = JSON.stringify(jsonPath(e, where, input, [b.body], 'body')[0]);
  const responseBody = b.responseBody === '' ? 'null' : JSON.stringify(jsonPath(e, where, output, [b.responseBody], 'response_body')[0]);
  return `{ method: ${JSON.stringify(b.method)}, path: [${parts.join(', ')}], body: ${body}, responseBody: ${responseBody} }`;
}

// Maps a dotted proto field path to JSON names, checking every step names a real field.
function jsonPath(e: FileEmitter, where: string, root: MessageInfo, protoPath: readonly string[], context: string): string[] {
  const out: string[] = [];
  let message: MessageInfo | undefined = root;
  protoPath.forEach((name, i) => {
    const field: FieldDescriptorProto | undefined = message?.proto.field.find((f) => f.name === name);
    if (field === undefined || message === undefined) {
      throw new PluginError(`${where}: "${protoPath.join('.')}" in google.api.http ${context} does not name a field of ${root.typeName.slice(1)}`);
    }
    out.push(field.jsonName || field.name);
    if (i < protoPath.length - 1) message = field.typeName === '' ? undefined : e.ctx.index.message(field.typeName);
  });
  return out;
}

function responseFieldType(e: FileEmitter, where: string, output: MessageInfo, name: string): string {
  const i = output.proto.field.findIndex((f) => f.name === name);
  const field = output.proto.field[i];
  if (field === undefined) throw new PluginError(`${where}: response_body "${name}" does not name a field of ${output.typeName.slice(1)}`);
  return e.fieldType(field, output, [...output.path, 2, i]);
}
