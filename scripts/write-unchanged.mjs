// Files under dist/ are read while a build writes them: running servers import chunks, and the
// test suite packs the package (test/e2e/package-install.test.ts) while another test rebuilds.
// writeIfChanged never leaves a half-written file: an unchanged file is not touched, a changed
// one is written beside it and renamed over it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** writeIfChanged writes `contents` to `path` atomically, unless the file already holds exactly them. */
export function writeIfChanged(path, contents) {
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
  if (existsSync(path) && readFileSync(path).equals(bytes)) return;
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
}
