/**
 * The one-way folder graph of docs/architecture.md, checked on the source: each file belongs to a
 * layer (lib, store, core, plugin, a family, the services registry, the library door
 * src/fogbank.ts, the guard proxy src/guard, cli, the shared test harness src/testing, and the end-to-end tree test/), and an
 * import may only point down. importGraphViolations reads a tree and names every import that
 * points the wrong way.
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Layer is where a file sits in the graph. */
type Layer =
  | { readonly kind: 'lib' | 'store' | 'core' | 'plugin' | 'services' | 'fogbank' | 'guard' | 'cli' | 'testing' | 'test' | 'bench' | 'scripts' | 'other' }
  | { readonly kind: 'family'; readonly name: string };

/** layerOf places a path (relative to the repository, `/`-separated). */
function layerOf(path: string): Layer {
  const parts = path.split('/');
  if (parts[0] === 'test') return { kind: 'test' };
  if (parts[0] === 'bench') return { kind: 'bench' };
  if (parts[0] === 'scripts') return { kind: 'scripts' };
  if (parts[0] !== 'src') return { kind: 'other' };
  if (parts.length === 2) return parts[1] === 'fogbank.ts' ? { kind: 'fogbank' } : { kind: 'other' };
  const top = parts[1];
  if (top === 'services') return parts.length === 3 ? { kind: 'services' } : { kind: 'family', name: parts[2] ?? '' };
  if (top === 'lib' || top === 'store' || top === 'core' || top === 'plugin' || top === 'guard' || top === 'cli' || top === 'testing') return { kind: top };
  return { kind: 'other' };
}

/** isTestCode is true for tests and their fixtures and helpers, which may use the shared harness. */
function isTestCode(path: string): boolean {
  return /\.(test|fixture)\.ts$/.test(path) || path.split('/').includes('testing');
}

/** MAY_IMPORT says which layers each layer's files may import (its own always). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  lib: [],
  plugin: ['lib'],
  store: ['lib'],
  core: ['lib', 'store'],
  family: ['lib', 'store', 'core'],
  services: ['lib', 'store', 'core', 'family'],
  fogbank: ['lib', 'store', 'core', 'services', 'family'],
  // fogbank guard: a proxy enforcing what compute's evaluation decides; it talks to a server over HTTP, never starts one.
  guard: ['lib', 'core', 'family'],
  cli: ['lib', 'store', 'core', 'plugin', 'fogbank', 'guard'],
  testing: ['lib', 'store', 'core', 'services', 'family', 'fogbank'],
  test: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'fogbank', 'guard', 'testing', 'test'],
  bench: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'fogbank', 'guard', 'testing', 'test', 'bench'],
  scripts: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'fogbank'],
  other: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'fogbank', 'guard', 'cli', 'testing'],
};

/** Violation is one import that points the wrong way. */
export interface Violation {
  readonly from: string;
  readonly to: string;
  readonly why: string;
}

/** verdict says why `from` may not import `to`, or undefined when it may. */
function verdict(from: string, to: string): string | undefined {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a.kind === 'family' && b.kind === 'family') return a.name === b.name ? undefined : `family ${a.name} imports family ${b.name}`;
  if (a.kind === b.kind) return undefined;
  // Tests beside the code may start fogbank through the shared harness, and any test may read
  // the build's own settings (the start-up graph test reads the bundle options).
  if (b.kind === 'testing' && isTestCode(from) && from.startsWith('src/')) return undefined;
  if (b.kind === 'scripts' && (isTestCode(from) || a.kind === 'test')) return undefined;
  // The documentation test checks that every documented command line parses as the CLI parses it.
  if (b.kind === 'cli' && from.startsWith('test/docs/')) return undefined;
  if (MAY_IMPORT[a.kind]?.includes(b.kind)) return undefined;
  const name = (layer: Layer): string => (layer.kind === 'family' ? `family ${layer.name}` : layer.kind === 'fogbank' ? 'src/fogbank.ts' : layer.kind);
  return `${name(a)} imports ${name(b)}`;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** importsOf lists the relative module specifiers a source text imports or re-exports. */
export function importsOf(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? '').filter((spec) => spec !== '');
}

/** sourceFiles lists the TypeScript and JavaScript files under `root`'s src, test, bench and scripts. */
function sourceFiles(root: string): string[] {
  const walk = (dir: string): string[] => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : walk(path);
      return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
    });
  };
  return ['src', 'test', 'bench', 'scripts'].flatMap((top) => walk(join(root, top)));
}

/** importGraphViolations reads every source file under `root` and returns the imports that point the wrong way. */
export function importGraphViolations(root: string): Violation[] {
  const absoluteRoot = resolve(root);
  const toRepo = (path: string): string => relative(absoluteRoot, path).split(sep).join('/');
  const violations: Violation[] = [];
  for (const file of sourceFiles(absoluteRoot)) {
    const from = toRepo(file);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const to = toRepo(resolve(dirname(file), spec));
      const why = verdict(from, to);
      if (why !== undefined) violations.push({ from, to, why });
    }
  }
  return violations;
}
