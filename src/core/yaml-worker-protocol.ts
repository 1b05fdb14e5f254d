/**
 * What the YAML decoding threads (yaml-worker.ts) and their pool (yaml-worker-pool.ts) send each
 * other. Errors do not cross threads as themselves (a structured clone keeps no class), so a
 * refusal travels as its kind and is rebuilt as the same typed error on the requesting thread:
 * the family words it exactly as when the body parsed inline.
 */
import { YamlAliasingError, YamlTooDeepError } from './yaml-errors.ts';

/** YamlWorkerRequest is one body to decode. */
export interface YamlWorkerRequest {
  readonly id: number;
  readonly text: string;
}

/** YamlFailure is a thrown error as data: the two typed refusals, or any other error's name and message (the library's syntax errors). */
export type YamlFailure =
  | { readonly kind: 'too-deep'; readonly line: number | undefined }
  | { readonly kind: 'aliasing' }
  | { readonly kind: 'other'; readonly name: string; readonly message: string };

/**
 * YamlWorkerReply is a decoded body or its failure. The value travels as JSON text when JSON
 * says the same thing: JSON.parse rebuilds a 60,000-key mapping in about half the time a
 * structured clone does, and that time is the requesting thread's. Otherwise (aliases shared
 * between places, `.inf`, `.nan`, -0) it travels as the value itself.
 */
export type YamlWorkerReply =
  | { readonly id: number; readonly json: string }
  | { readonly id: number; readonly value: unknown }
  | { readonly id: number; readonly failure: YamlFailure };

/** replyOf is the worker's answer for a value parsed. */
export function replyOf(id: number, value: unknown): YamlWorkerReply {
  const seen = new Set<object>();
  let faithful = true;
  const json = JSON.stringify(value, (_key, part: unknown) => {
    if (!faithful) return undefined;
    if (typeof part === 'object' && part !== null) {
      // A second visit is an alias: JSON would copy it where the inline parse shares it.
      if (seen.has(part)) faithful = false;
      seen.add(part);
    } else if (typeof part === 'number') {
      if (!Number.isFinite(part) || Object.is(part, -0)) faithful = false;
    } else if (typeof part !== 'string' && typeof part !== 'boolean' && part !== null) faithful = false;
    return faithful ? part : undefined;
  });
  return faithful && json !== undefined ? { id, json } : { id, value };
}

/** failureOf describes an error thrown while parsing, for the reply. */
export function failureOf(error: unknown): YamlFailure {
  if (error instanceof YamlTooDeepError) return { kind: 'too-deep', line: error.line };
  if (error instanceof YamlAliasingError) return { kind: 'aliasing' };
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { kind: 'other', name, message };
}

/** replyValue opens a reply: the value, or the rebuilt error thrown. */
export function replyValue(reply: YamlWorkerReply): unknown {
  if ('json' in reply) return JSON.parse(reply.json) as unknown;
  if ('value' in reply) return reply.value;
  const { failure } = reply;
  switch (failure.kind) {
    case 'too-deep':
      throw new YamlTooDeepError(failure.line);
    case 'aliasing':
      throw new YamlAliasingError();
    default: {
      const error = new Error(failure.message);
      error.name = failure.name;
      throw error;
    }
  }
}
