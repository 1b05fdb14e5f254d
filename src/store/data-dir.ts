import { accessSync, constants, mkdirSync } from 'node:fs';

/** DataDirError says the data directory cannot be used, naming it and why. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/** REASONS phrases the file-system errors a data directory meets. */
const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'it is on a read-only file system',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file with that name exists',
};

/**
 * prepareDataDir makes the data directory (owner-only) when missing and checks that it can be
 * written, so a read-only one is reported by path before anything is opened in it.
 */
export function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = REASONS[code] ?? (error as Error).message;
    throw new DataDirError(`cannot write to the data directory ${dir}: ${reason}; choose another with --data-dir, or keep nothing on disk with --ephemeral`);
  }
}
