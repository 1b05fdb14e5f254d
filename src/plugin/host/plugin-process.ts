import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { PluginProtocolError } from '../runtime/errors.ts';
import type { Plugin } from '../runtime/plugin.ts';
import { runPlugin } from '../runtime/run-plugin.ts';

/** PluginOutcome is how a plugin run ended, with everything it wrote to stdout. */
export type PluginOutcome =
  | { readonly kind: 'exit'; readonly code: number; readonly stdout: Uint8Array }
  | { readonly kind: 'signal'; readonly signal: number; readonly stdout: Uint8Array };

/** PluginInvoker runs one plugin on one encoded request; the plugin's stderr goes to `stderr`. */
export type PluginInvoker = (request: Uint8Array, stderr: (text: string) => void) => Promise<PluginOutcome>;

/**
 * execPlugin runs an executable the way protoc does: no arguments, the request on stdin, stdout
 * read to EOF, then the exit status. A program that cannot be started gets the message protoc's
 * forked child prints, and exit status 1.
 */
export function execPlugin(program: string): PluginInvoker {
  return (request, stderr) =>
    new Promise((resolve) => {
      const child = spawn(program, [], { stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let failedToStart = false;
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => stderr(b.toString('utf8')));
      child.stdin.on('error', () => {
        // protoc ignores SIGPIPE: a plugin that stops reading early is not an error by itself.
      });
      child.on('error', () => {
        failedToStart = true;
      });
      child.on('close', (code, signal) => {
        const stdout = Buffer.concat(out);
        if (failedToStart) {
          stderr(
            `${program}: program not found or is not executable\n` +
              'Please specify a program using absolute path or make sure the program is available in your PATH system variable\n',
          );
          resolve({ kind: 'exit', code: 1, stdout: new Uint8Array(0) });
        } else if (signal !== null) {
          resolve({ kind: 'signal', signal: constants.signals[signal] ?? 0, stdout });
        } else {
          resolve({ kind: 'exit', code: code ?? 0, stdout });
        }
      });
      child.stdin.end(request);
    });
}

/**
 * inProcessPlugin runs a runtime Plugin without a subprocess, with the same exit semantics as
 * the executable built from it: protocol errors print `<name>: <msg>` and exit 1.
 */
export function inProcessPlugin(plugin: Plugin): PluginInvoker {
  return (request, stderr) => {
    try {
      return Promise.resolve({ kind: 'exit', code: 0, stdout: runPlugin(plugin, request) });
    } catch (err) {
      if (!(err instanceof PluginProtocolError)) return Promise.reject(err);
      stderr(`${plugin.name}: ${err.message}\n`);
      return Promise.resolve({ kind: 'exit', code: 1, stdout: new Uint8Array(0) });
    }
  };
}
