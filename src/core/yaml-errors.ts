/**
 * The typed errors of a YAML request body (yaml-body.ts parses it, yaml-worker-pool.ts on a
 * thread for large ones): too deep, aliases expanding too far, over the decoding limits, no
 * thread free, or a decoding thread that failed. Each family's error serializer answers them in
 * its dialect; the worker protocol (yaml-worker-protocol.ts) carries them across the thread.
 */
import { MAX_JSON_DEPTH } from './json-body.ts';

/** YamlTooDeepError is a YAML body nested deeper than MAX_JSON_DEPTH; `line` (1-based) is where the scan found it, when it did. */
export class YamlTooDeepError extends Error {
  override readonly name = 'YamlTooDeepError';
  readonly statusCode = 400;
  constructor(readonly line: number | undefined) {
    super(`YAML nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** YamlAliasingError is a YAML body whose aliases expand past MAX_YAML_ALIAS_COUNT nodes (a "billion laughs"). */
export class YamlAliasingError extends Error {
  override readonly name = 'YamlAliasingError';
  readonly statusCode = 400;
  constructor() {
    super('YAML aliases expand too far');
  }
}

/**
 * YamlDecodeLimitError is a YAML body fogbank gave up decoding (not one the apiserver would
 * refuse): it took longer than the deadline, or more memory than a decoding thread may use.
 */
export class YamlDecodeLimitError extends Error {
  override readonly name = 'YamlDecodeLimitError';
  readonly statusCode = 400;
}

/** YamlBusyError is a large YAML body that found no decoding thread: too many are waiting, or the server is closing. */
export class YamlBusyError extends Error {
  override readonly name = 'YamlBusyError';
  readonly statusCode = 429;
  constructor(readonly why: 'queue-full' | 'closing') {
    super(why === 'queue-full' ? 'too many large YAML bodies are waiting to be decoded' : 'the server is closing');
  }
}

/** YamlDecoderFailure is a decoding thread that failed for a reason other than the body (it could not start, or ended): fogbank's fault. */
export class YamlDecoderFailure extends Error {
  override readonly name = 'YamlDecoderFailure';
}
