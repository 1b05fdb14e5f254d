import { concatBytes } from './concat-bytes.ts';
import { PluginProtocolError } from './errors.ts';
import type { Plugin } from './plugin.ts';
import { runPlugin } from './run-plugin.ts';

/** PluginIo is the process surface a plugin run needs; tests pass in-memory streams. */
export interface PluginIo {
  readonly argv: readonly string[];
  readonly stdin: AsyncIterable<Uint8Array | string>;
  readonly stdout: { write(chunk: Uint8Array, cb: (err?: Error | null) => void): unknown };
  readonly stderr: { write(text: string): unknown };
}

/**
 * runNodePlugin drives a plugin as protoc runs it: no arguments, one request on stdin, one
 * response on stdout. It resolves to the exit code: 0 whenever a response was written (even
 * one carrying `error`), 1 for protocol or I/O failures, which are printed as `<name>: <msg>`.
 */
export async function runNodePlugin(plugin: Plugin, io: PluginIo): Promise<number> {
  const arg = io.argv[0];
  if (arg === '--version' || arg === '-v') {
    await write(io, new TextEncoder().encode(`${plugin.name} ${plugin.version}\n`));
    return 0;
  }
  if (arg !== undefined) {
    io.stderr.write(`${plugin.name}: Unknown option: ${arg}\n`);
    return 1;
  }
  try {
    const request = await readAll(io.stdin);
    const response = runPlugin(plugin, request);
    await write(io, response).catch(() => {
      throw new PluginProtocolError('Error writing to stdout.');
    });
    return 0;
  } catch (err) {
    if (err instanceof PluginProtocolError) {
      io.stderr.write(`${plugin.name}: ${err.message}\n`);
      return 1;
    }
    // A bug in the generator: keep the stack, protoc will report the exit status.
    io.stderr.write(`${plugin.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

async function readAll(stream: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  return concatBytes(chunks);
}

function write(io: PluginIo, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    io.stdout.write(bytes, (err) => (err ? reject(err) : resolve()));
  });
}
