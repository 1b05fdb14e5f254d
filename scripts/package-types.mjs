// Writes dist/types/: the declaration files the package's exports need (package.json `types`),
// copied from tsc's declarations of every source file (dist/declarations/, tsconfig.build.json)
// by walking the imports of each export's entry, so the package carries the types of what it
// exports and not of the whole tree. tsc keeps the sources' `.ts` import specifiers in its
// declarations; they are written as `.js` here, which every consumer's TypeScript resolves to the
// `.d.ts` beside it, whatever its allowImportingTsExtensions.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { writeIfChanged } from './write-unchanged.mjs';

/** TYPE_ENTRIES are the declarations of the package's exports, under the declarations folder. */
export const TYPE_ENTRIES = ['fogbank.d.ts', 'plugin/runtime/index.d.ts', 'plugin/host/index.d.ts', 'plugin/generators/index.d.ts'];

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g;

/** packageTypes copies the declarations reachable from TYPE_ENTRIES into `to` and returns how many. */
export function packageTypes({ from = 'dist/declarations', to = 'dist/types' } = {}) {
  const pending = [...TYPE_ENTRIES];
  const seen = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = join(from, file);
    if (!existsSync(source)) throw new Error(`package-types: ${source} is missing (tsc -p tsconfig.build.json writes it)`);
    const text = readFileSync(source, 'utf8').replace(SPECIFIER, (_, lead, quote, specifier) => {
      const declaration = specifier.replace(/\.[cm]?[jt]s$/, '.d.ts');
      pending.push(relative(from, join(dirname(source), declaration)));
      return `${lead}${quote}${specifier.replace(/\.ts$/, '.js')}${quote}`;
    });
    writeIfChanged(join(to, file), text);
  }
  // Declarations no export reaches any more go (unchanged ones were not touched: a pack reading them meanwhile sees whole files).
  for (const file of readdirSync(to, { recursive: true, withFileTypes: true }))
    if (file.isFile() && !seen.has(relative(to, join(file.parentPath ?? file.path, file.name)))) rmSync(join(file.parentPath ?? file.path, file.name));
  return seen.size;
}
