/** The seed snapshot a start restores before the families start (`StartOptions.snapshot`, `--snapshot`). */
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { SnapshotError } from '../store/snapshot-format.ts';

/** openSnapshotFile opens a seed snapshot for reading; one that cannot be opened is a SnapshotError naming it. */
export async function openSnapshotFile(path: string): Promise<NodeJS.ReadableStream & AsyncIterable<Buffer>> {
  const stream = createReadStream(path);
  try {
    await once(stream, 'open');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SnapshotError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`);
  }
  return stream;
}
