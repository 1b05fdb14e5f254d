/**
 * The two failure classes of the plugin protocol. Plugin.proto draws the line: a problem with
 * the schema or the parameter is the user's to fix and travels in `CodeGeneratorResponse.error`
 * (exit 0); a problem with the conversation itself (garbage on stdin, a missing descriptor)
 * means the compiler and plugin disagree, so it goes to stderr with a non-zero exit.
 */

/** PluginError is a schema, parameter or generation problem reported in `response.error`. */
export class PluginError extends Error {
  override readonly name: string = 'PluginError';
}

/** PluginParameterError is a rejected generator parameter; its message names the raw option. */
export class PluginParameterError extends PluginError {
  override readonly name = 'PluginParameterError';
  /** option is the raw `key=value` text the user wrote. */
  readonly option: string;
  constructor(option: string, reason: string) {
    super(`invalid parameter "${option}": ${reason}`);
    this.option = option;
  }
}

/** PluginProtocolError is a broken request or I/O failure: stderr and a non-zero exit. */
export class PluginProtocolError extends Error {
  override readonly name = 'PluginProtocolError';
}

/**
 * invalidDescriptor is the protocol error for descriptors in the request that do not form a valid
 * schema (a name that is not an identifier, a type reference to nothing): protoc never sends
 * those, so the conversation is broken, as with unparseable bytes. The reason is kept to one
 * printable line, whatever bytes the bad descriptor held.
 */
export function invalidDescriptor(reason: unknown): PluginProtocolError {
  const text = reason instanceof Error ? reason.message : String(reason);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is escaped to keep the reason one printable line
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return new PluginProtocolError(`protoc sent an invalid descriptor to plugin: ${line}`);
}
