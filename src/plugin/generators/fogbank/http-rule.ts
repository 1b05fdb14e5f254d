import { createFileRegistry, getExtension, hasExtension, type DescExtension } from '@bufbuild/protobuf';
import type { FileDescriptorProto, MethodDescriptorProto } from '@bufbuild/protobuf/wkt';
import { invalidDescriptor } from '../../runtime/index.ts';

/** HttpBinding is one `google.api.http` binding: the primary rule or one additional binding. */
export interface HttpBinding {
  readonly method: string;
  readonly path: string;
  /** body is "", "*" or a top-level request field name (proto name). */
  readonly body: string;
  /** responseBody is "" or a top-level response field name (proto name). */
  readonly responseBody: string;
}

// The dynamic HttpRule message, as @bufbuild/protobuf's reflection builds it. The request
// describes HttpRule itself, so a request whose http.proto differs may lack any of the fields.
interface HttpRuleShape {
  readonly pattern?: { readonly case: string | undefined; readonly value?: unknown };
  readonly body?: unknown;
  readonly responseBody?: unknown;
  readonly additionalBindings?: unknown;
}

/** isHttpRule says whether an extension value is a message (every field of HttpRuleShape is checked where read). */
function isHttpRule(value: unknown): value is HttpRuleShape {
  return typeof value === 'object' && value !== null;
}

/**
 * HttpRuleReader reads `google.api.http` from method options. The extension is described by
 * google/api/http.proto in the request itself, so no copy of it is compiled into fogbank;
 * when the request does not import google/api/annotations.proto, no method has a rule.
 */
export class HttpRuleReader {
  private readonly extension: DescExtension | undefined;

  constructor(files: readonly FileDescriptorProto[]) {
    const byName = new Map(files.map((f) => [f.name, f]));
    const annotations = byName.get('google/api/annotations.proto');
    if (annotations === undefined) return;
    try {
      const registry = createFileRegistry(annotations, (name) => byName.get(name));
      this.extension = registry.getExtension('google.api.http');
    } catch (error) {
      // The request's own descriptor.proto, http.proto… do not build: the request is broken.
      throw invalidDescriptor(error);
    }
  }

  /** bindings returns the method's bindings, primary first; [] when it has no rule. */
  bindings(method: MethodDescriptorProto): HttpBinding[] {
    const ext = this.extension;
    const options = method.options;
    if (ext === undefined || options === undefined || !hasExtension(options, ext)) return [];
    let rule: unknown;
    try {
      rule = getExtension(options, ext);
    } catch (error) {
      throw invalidDescriptor(error);
    }
    if (!isHttpRule(rule)) return [];
    const out: HttpBinding[] = [];
    const add = (r: HttpRuleShape) => {
      const b = toBinding(r);
      if (b !== undefined) out.push(b);
    };
    add(rule);
    // The request describes HttpRule itself; a request whose http.proto differs may lack fields.
    const extras: unknown[] = Array.isArray(rule.additionalBindings) ? rule.additionalBindings : [];
    for (const extra of extras.filter(isHttpRule)) add(extra);
    return out;
  }
}

function toBinding(rule: HttpRuleShape): HttpBinding | undefined {
  const pattern = rule.pattern;
  let method: string;
  let path: string;
  if (pattern === undefined) {
    return undefined;
  } else if (pattern.case === 'custom') {
    const custom = pattern.value as { kind?: unknown; path?: unknown } | undefined;
    if (typeof custom?.kind !== 'string' || typeof custom.path !== 'string') return undefined;
    method = custom.kind.toUpperCase();
    path = custom.path;
  } else if (pattern.case !== undefined && typeof pattern.value === 'string') {
    method = pattern.case.toUpperCase();
    path = pattern.value;
  } else {
    return undefined;
  }
  return { method, path, body: typeof rule.body === 'string' ? rule.body : '', responseBody: typeof rule.responseBody === 'string' ? rule.responseBody : '' };
}
