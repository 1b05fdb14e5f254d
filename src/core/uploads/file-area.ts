import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * FileArea is a directory a family keeps files in (upload spools, raw messages, bundles): a
 * folder under the data directory that outlives the process, or, with `--ephemeral`, a
 * temporary directory the area owns and removes when it is closed.
 */
export interface FileArea {
  readonly dir: string;
  /** persistent is false for an ephemeral area (removed on close). */
  readonly persistent: boolean;
  /** path joins names under the area, creating the folder they sit in. */
  path(...names: string[]): string;
  /** close removes an ephemeral area; a persistent one is kept. */
  close(): void;
}

/** openFileArea opens `<dataDir>/<name>`, or a fresh temporary directory when there is no data directory. */
export function openFileArea(dataDir: string | undefined, name: string): FileArea {
  const persistent = dataDir !== undefined;
  const dir = persistent ? join(dataDir, name) : mkdtempSync(join(tmpdir(), `fogbank-${name.replace(/[^a-z0-9]+/gi, '-')}-`));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const made = new Set<string>([dir]);
  return {
    dir,
    persistent,
    path(...names: string[]): string {
      const full = join(dir, ...names);
      const folder = join(full, '..');
      if (!made.has(folder)) {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        made.add(folder);
      }
      return full;
    },
    close(): void {
      if (!persistent) rmSync(dir, { recursive: true, force: true });
    },
  };
}
