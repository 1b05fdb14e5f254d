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
