import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * One data directory, one process. The holder keeps an exclusive SQLite lock on a small database
 * of its own in the data directory (`fogbank.lock`, `BEGIN EXCLUSIVE` under
 * `locking_mode=EXCLUSIVE`). SQLite's locks are POSIX advisory locks, which the operating system
 * drops when the holding process ends however it ends, so a `kill -9` never leaves a stale lock
 * and the next start succeeds at once. The holder's pid sits beside it in `fogbank.pid`, only so
 * that the refusal can name the process; the lock, not that file, decides.
 */

/** LOCK_FILE_NAME is the lock database under the data directory. */
export const LOCK_FILE_NAME = 'fogbank.lock';
/** PID_FILE_NAME holds the holder's pid under the data directory. */
export const PID_FILE_NAME = 'fogbank.pid';

/** DataDirInUseError says another live process holds the data directory. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    /** The holder's pid, when it could be read. */
    readonly pid: number | undefined,
  ) {
    super(
      `the data directory ${dataDir} is in use by another fogbank (${pid === undefined ? 'pid unknown' : `pid ${pid}`}); stop it or start with another --data-dir`,
    );
  }
}

/** DataDirLock is a held lock; release lets the next process in. */
export interface DataDirLock {
  release(): void;
}

/** lockDataDir takes the data directory (which must exist) for this process, or throws DataDirInUseError. */
export function lockDataDir(dataDir: string): DataDirLock {
  const db = new Database(join(dataDir, LOCK_FILE_NAME), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DataDirInUseError(dataDir, readHolder(dataDir));
    throw error;
  }
  writeFileSync(join(dataDir, PID_FILE_NAME), `${process.pid}\n`);
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function readHolder(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, PID_FILE_NAME), 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
