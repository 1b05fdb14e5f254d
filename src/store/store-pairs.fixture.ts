import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from './memory-store.ts';
import { startPostgres, type PostgresServer } from '../testing/postgres-server.ts';
import { PostgresStore } from './postgres-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * StorePairs opens, for each backend, a pair of stores on the same state: two replicas on one
 * database for PostgreSQL, the same store twice where only one process can open it. `close`
 * closes them all, stops the PostgreSQL server (started on first use) and removes the
 * directories; call it from the test file's `after`.
 */
export class StorePairs {
  readonly #dirs: string[] = [];
  readonly #opened: Store[] = [];
  #postgres: Promise<PostgresServer> | undefined;
  #databases = 0;

  constructor(private readonly name: string) {}

  readonly backends: readonly [string, () => Promise<[Store, Store]>][] = [
    [
      'memory',
      async () => {
        const store = new MemoryStore();
        this.#opened.push(store);
        return [store, store];
      },
    ],
    [
      'sqlite',
      async () => {
        const store = SqliteStore.open(join(await this.tempDir(), 'fogbank.db'));
        this.#opened.push(store);
        return [store, store];
      },
    ],
    [
      'postgres',
      async () => {
        this.#postgres ??= startPostgres();
        const server = await this.#postgres;
        const url = await server.createDatabase(`${this.name}_${++this.#databases}`);
        const a = await PostgresStore.open(url);
        const b = await PostgresStore.open(url);
        this.#opened.push(a, b);
        return [a, b];
      },
    ],
  ];

  /** tempDir makes a directory removed by close. */
  async tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), `fogbank-${this.name}-`));
    this.#dirs.push(dir);
    return dir;
  }

  async close(): Promise<void> {
    await Promise.all(this.#opened.map((store) => store.close()));
    if (this.#postgres !== undefined) await (await this.#postgres).stop();
    await Promise.all(this.#dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

/** chunks is an async source of the given pieces; `fail` makes it die after them, as a dropped client does. */
export async function* chunks(parts: readonly Uint8Array[], fail?: Error): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
  if (fail !== undefined) throw fail;
}

/** readAll collects a stream. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** pattern is `size` bytes that differ at every offset (a misplaced piece shows). */
export function pattern(size: number, seed = 0): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed + (i >> 16)) & 0xff;
  return bytes;
}
