import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** LIVE are the directories made and not yet removed; one process exit hook removes them all (a hook each would trip Node's listener warning past ten stores). */
const LIVE = new Set<LazyTempDir>();
let hooked = false;

/**
 * LazyTempDir is a temporary directory made on first use and removed by `remove` — or, for an
 * owner nobody closes (a test, a crash of the caller), when the process exits — so the memory
 * store can keep large bytes on disk and still leave nothing behind.
 */
export class LazyTempDir {
  #dir: string | undefined;

  constructor(private readonly prefix: string) {}

  /** path is the directory, made now when it does not exist yet. */
  path(): string {
    if (this.#dir === undefined) {
      this.#dir = mkdtempSync(join(tmpdir(), this.prefix));
      LIVE.add(this);
      if (!hooked) {
        hooked = true;
        process.once('exit', () => {
          for (const dir of LIVE) dir.remove();
        });
      }
    }
    return this.#dir;
  }

  /** remove deletes the directory and everything in it (a later `path` makes a new one). */
  remove(): void {
    if (this.#dir === undefined) return;
    rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    LIVE.delete(this);
  }
}
