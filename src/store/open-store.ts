import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryStore } from './memory-store.ts';
import type { Store } from './store.ts';

/** OpenStoreOptions say where file-backed stores keep their data. */
export interface OpenStoreOptions {
  /** The data directory (`./.fogbank` by default in the CLI); created when missing. */
  readonly dataDir: string;
  /** How many connections a postgres store may open (default 10). */
  readonly poolSize?: number;
  /** Told about database trouble while running (postgres keeps reconnecting meanwhile). */
  readonly onTrouble?: (message: string) => void;
}

/** SQLITE_FILE_NAME is the database file the sqlite backend keeps under the data directory. */
export const SQLITE_FILE_NAME = 'fogbank.db';

/**
 * MEMORY_CHANGE_RETENTION is how many changes the in-memory store (`--ephemeral`, `--store memory`)
 * keeps for resuming watches: each holds its value, so the feed is bounded like everything else
 * that lives on the heap; a watcher further behind gets the usual "compacted" answer.
 */
export const MEMORY_CHANGE_RETENTION = 10_000;

/**
 * openStore turns a `--store` value into a backend: `memory`, `sqlite` (the file
 * `<dataDir>/fogbank.db`) or a `postgres://` / `postgresql://` URL.
 */
export async function openStore(spec: string, options: OpenStoreOptions): Promise<Store> {
  if (spec === 'memory') return new MemoryStore({ changeRetention: MEMORY_CHANGE_RETENTION });
  if (spec === 'sqlite') {
    await mkdir(options.dataDir, { recursive: true });
    // The native binding loads only for a SQLite store (`--ephemeral` never needs it).
    const { SqliteStore } = await import('./sqlite-store.ts');
    return SqliteStore.open(join(options.dataDir, SQLITE_FILE_NAME));
  }
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    // The driver loads only for a postgres store (start-up time and memory of every other one).
    const { PostgresStore } = await import('./postgres-store.ts');
    return PostgresStore.open(spec, {
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.onTrouble === undefined ? {} : { onTrouble: options.onTrouble }),
    });
  }
  throw new Error(`unknown store '${spec}': expected sqlite, memory or postgres://…`);
}
