import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { CompatMode } from './compat.ts';
import type { OutputContext } from './output-context.ts';

/** WriteOptions says where relative locations are resolved and how to report. */
export interface WriteOptions {
  readonly cwd: string;
  readonly compat: CompatMode;
  readonly stderr: (text: string) => void;
}

/**
 * writeContexts writes each location's tree. A file name that would leave its output directory
 * is refused in every mode. In `protoc` mode every location is checked before anything is
 * written, so a failed run writes nothing (current protoc iterates a hash map with a per-process
 * seed, so which locations it writes before failing is not reproducible anyway). The other modes
 * write location by location, most recently created first, stopping at the first failure, as
 * protoc 3.21's unordered_map iteration does in practice.
 */
export function writeContexts(contexts: readonly OutputContext[], options: WriteOptions): boolean {
  const ordered = [...contexts].reverse();
  if (options.compat === 'protoc' && !ordered.every((c) => checkContext(c, options.compat, options.stderr))) return false;
  for (const context of ordered) {
    if (!writeContext(context, options)) return false;
  }
  return true;
}

/**
 * checkContext returns a location's file names in write order (byte order, as protoc's map
 * iterates), or undefined after printing why nothing of it may be written.
 */
export function checkContext(context: OutputContext, compat: CompatMode, stderr: (text: string) => void): string[] | undefined {
  if (context.hadError) return undefined;
  const names = [...context.files.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    const escapes = compat === 'protoc' ? name.includes('..') : escapesRoot(name);
    if (escapes) {
      stderr(
        compat === 'buf'
          ? `Failure: path "${name}" should not jump context\n`
          : `Output file names must never have a relative path. (${name}). Use --unsafe_allow_out_dir_escape to disable this error if intentional.\n`,
      );
      return undefined;
    }
  }
  return names;
}

function writeContext(context: OutputContext, { cwd, compat, stderr }: WriteOptions): boolean {
  const names = checkContext(context, compat, stderr);
  if (names === undefined) return false;
  const root = resolve(cwd, context.location);
  if (!isDirectory(root)) {
    if (compat === 'buf') mkdirSync(root, { recursive: true });
    else {
      stderr(`${context.location}: No such file or directory\n`);
      return false;
    }
  }
  for (const name of names) {
    const parts = name.split(/[/\\]/);
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      if (part === '') continue;
      dir = `${dir}${sep}${part}`;
      if (!isDirectory(dir)) {
        try {
          mkdirSync(dir);
        } catch (err) {
          stderr(`${name}: while trying to create directory ${dir}: ${reason(err)}\n`);
          return false;
        }
      }
    }
    const path = `${root}${sep}${name}`;
    try {
      writeFileSync(path, context.files.get(name) ?? Buffer.alloc(0));
    } catch (err) {
      stderr(`${path}: ${reason(err)}\n`);
      return false;
    }
  }
  return true;
}

// Resolved against a stand-in root: only the name decides whether it leaves the directory.
function escapesRoot(name: string): boolean {
  const root = resolve('/', 'output-root');
  const target = resolve(root, name.replace(/^\/+/, ''));
  return target !== root && !target.startsWith(root + sep);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'EACCES') return 'Permission denied';
  if (code === 'ENOENT') return 'No such file or directory';
  if (code === 'EISDIR') return 'Is a directory';
  return err instanceof Error ? err.message : String(err);
}
