// The package's chunks are the current build's: scripts/build.mjs keeps earlier builds' chunks in
// dist/chunks (a running server loads a family's chunk on first use) and writes a .npmignore
// there naming them, which npm honours inside a folder that package.json's `files` lists.
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';

/** staleChunksIgnore is the .npmignore of dir: every file in it that the build (its metafile) did not write. */
export function staleChunksIgnore(metafile, dir) {
  const current = new Set(Object.keys(metafile.outputs).map((path) => basename(path)));
  const stale = readdirSync(dir).filter((name) => name !== '.npmignore' && !current.has(name));
  return `# Written by scripts/build.mjs: earlier builds' chunks, kept for running servers, not packaged.\n${stale.map((name) => `/${name}\n`).join('')}`;
}
