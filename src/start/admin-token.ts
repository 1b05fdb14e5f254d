/** The admin token of a start: given, kept in the data directory, or made (and kept there). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hexId, type IdSource } from '../lib/ids.ts';

/** resolveAdminToken takes the given token, else the one kept in the data directory, else makes and keeps one. */
export function resolveAdminToken(given: string | undefined, dataDir: string | undefined, ids: IdSource): { token: string; file: string | undefined } {
  if (given !== undefined) return { token: given, file: undefined };
  if (dataDir === undefined) return { token: `fogbank-${hexId(ids, 16)}`, file: undefined };
  const file = join(dataDir, 'admin-token');
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return { token: kept, file };
  } catch {
    // No token yet: make one below.
  }
  const token = `fogbank-${hexId(ids, 16)}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}
