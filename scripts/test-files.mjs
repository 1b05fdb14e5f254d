// Prints the test files of the suite, one per line, for `node --test $(node scripts/test-files.mjs)`.
//   --shuffle[=SEED]  random order (the seed, printed to stderr, reproduces it)
//   src|test          limit to files under that folder
// The suite must pass in any file order: `npm run test:shuffled` checks that.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const shuffle = args.find((a) => a === '--shuffle' || a.startsWith('--shuffle='));
const roots = args.filter((a) => !a.startsWith('--'));

/** walk lists every *.test.ts file under dir. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : walk(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

let files = (roots.length > 0 ? roots : ['src', 'test']).flatMap(walk).sort();
if (shuffle !== undefined) {
  let seed = shuffle.includes('=') ? Number(shuffle.slice(shuffle.indexOf('=') + 1)) : Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`test order: --shuffle=${seed}\n`);
  // mulberry32: a small seeded generator, so an order that fails can be replayed.
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  files = [...files];
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [files[i], files[j]] = [files[j], files[i]];
  }
}
process.stdout.write(`${files.join('\n')}\n`);
