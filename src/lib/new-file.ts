import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * writeNewFile streams `source` (through `through`, if given) into a file that must not exist
 * yet, readable by this user only. When any stream fails, the file this call created is
 * removed, and only after its writer has closed: a writer destroyed while its open() is still in the thread pool
 * creates the file after the failure, so removing it any earlier can leave it behind.
 */
export async function writeNewFile(source: Readable, path: string, ...through: Transform[]): Promise<void> {
  const writer = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  let created = false;
  writer.once('open', () => (created = true));
  try {
    await pipeline([source, ...through, writer]);
  } catch (error) {
    if (!writer.closed) await once(writer, 'close').catch(() => undefined);
    // A file that was already there (EEXIST) is someone else's: only ours is removed.
    if (created) await rm(path, { force: true });
    throw error;
  }
}
