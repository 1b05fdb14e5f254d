// Temporary directories a test makes are owned here: each is removed when the test file's
// process ends (normally or on SIGINT/SIGTERM), or earlier by removeTempDir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestProcessExit } from './exit.ts';

const owned = new Set<string>();

onTestProcessExit(() => {
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
  owned.clear();
});

/** tempDir makes a fresh directory under the OS temp dir that the harness removes at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fogbank-${prefix}-`));
  owned.add(dir);
  return dir;
}

/** removeTempDir removes a directory made by tempDir now (it is idempotent). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  owned.delete(dir);
}
