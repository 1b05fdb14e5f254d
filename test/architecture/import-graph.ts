/**
 * The one-way folder graph of docs/architecture.md, checked on the source: each file belongs to a
 * layer (lib, store, core, plugin, a family, the services registry, the library door
 * src/fogbank.ts, the guard proxy src/guard, cli, the shared test harness src/testing, and the end-to-end tree test/), and an
 * import may only point down. Above the families, the console, the guard, bench and cli may use a
 * family only through its face (public.ts, public-<topic>.ts, and index.ts, its definition), not
 * its internal files (store kinds, records, routes), but for the imports INTERNAL_IMPORTS_ALLOWED
 * lists while the guard moves to its face. Inside a family, no file but a test
 * imports the family's own index.ts (the index.ts ↔ register.ts circle). importGraphViolations
 * reads a tree and names every import that points the wrong way.
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Layer is where a file sits in the graph. */
type Layer =
  | {
      readonly kind:
        | 'lib'
        | 'store'
        | 'core'
        | 'plugin'
        | 'services'
        | 'console'
        | 'fogbank'
        | 'guard'
        | 'cli'
        | 'testing'
        | 'test'
        | 'bench'
        | 'scripts'
        | 'other';
    }
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
  // src/start/: the parts of startFogbank (admin token, control plane, client files, seed snapshot), src/fogbank.ts's own layer.
  if (top === 'start') return { kind: 'fogbank' };
  if (top === 'services') return parts.length === 3 ? { kind: 'services' } : { kind: 'family', name: parts[2] ?? '' };
  if (top === 'lib' || top === 'store' || top === 'core' || top === 'plugin' || top === 'console' || top === 'guard' || top === 'cli' || top === 'testing')
    return { kind: top };
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
  // The web console reads every family (the mail family's mailboxes, the admin API's readers).
  console: ['lib', 'store', 'core', 'services', 'family'],
  fogbank: ['lib', 'store', 'core', 'services', 'family', 'console'],
  // fogbank guard: a proxy enforcing what compute's evaluation decides; it talks to a server over HTTP, never starts one.
  guard: ['lib', 'core', 'family'],
  cli: ['lib', 'store', 'core', 'plugin', 'fogbank', 'guard'],
  testing: ['lib', 'store', 'core', 'services', 'family', 'console', 'fogbank'],
  test: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'console', 'fogbank', 'guard', 'testing', 'test'],
  bench: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'console', 'fogbank', 'guard', 'testing', 'test', 'bench'],
  scripts: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'console', 'fogbank'],
  other: ['lib', 'store', 'core', 'plugin', 'services', 'family', 'console', 'fogbank', 'guard', 'cli', 'testing'],
};

/** FACE_BOUND are the layers above the families that may use a family only through its face. */
const FACE_BOUND: ReadonlySet<string> = new Set(['console', 'guard', 'bench', 'cli']);

/**
 * isFace is true for a family's face, given the path inside the family folder: `public.ts` (read
 * models and functions), `public-<topic>.ts` (a face of its own where it loads more, such as
 * compute's evaluation engine, the cluster's views) and `index.ts` (the family's ServiceDefinition).
 */
function isFace(inFamily: string): boolean {
  return inFamily === 'index.ts' || /^public(-[a-z0-9]+(-[a-z0-9]+)*)?\.ts$/.test(inFamily);
}

/**
 * INTERNAL_IMPORTS_ALLOWED are the imports of a family's internal files from above that are still
 * allowed, as `from -> to`, each to be replaced by an import of the family's face and then struck
 * from this list (the graph test fails on an entry no file imports any more). The console, the
 * guard and bench use every family through its face, so the list is empty: a new entry needs a
 * reason written beside it.
 */
export const INTERNAL_IMPORTS_ALLOWED: ReadonlySet<string> = new Set<string>([]);

/** faceVerdict says why `from` (in a face-bound layer) may not import the family file `to`, or undefined when it may. */
function faceVerdict(from: string, to: string, family: string): string | undefined {
  const inFamily = to.split('/').slice(3).join('/');
  if (isFace(inFamily)) return undefined;
  // A family's test helpers (`*.fixture.ts`, `testing/`) are for tests and benchmarks, as test/ uses them.
  if (isTestCode(to) && (from.startsWith('bench/') || isTestCode(from))) return undefined;
  if (INTERNAL_IMPORTS_ALLOWED.has(`${from} -> ${to}`)) return undefined;
  return `${layerOf(from).kind} imports family ${family}'s internal ${inFamily} (its face is public.ts)`;
}

/**
 * OWN_DEFINITION_IMPORTS_ALLOWED are the files inside a family still importing the family's own
 * index.ts (its definition, which loads register.ts with import()): an import back is the
 * index.ts ↔ register.ts circle the other families broke with a prefixes.ts or values passed in.
 */
const OWN_DEFINITION_IMPORTS_ALLOWED: ReadonlySet<string> = new Set<string>([]);

/** ownDefinitionVerdict says why a file of `family` may not import the family's index.ts, or undefined when it may. */
function ownDefinitionVerdict(from: string, to: string, family: string): string | undefined {
  if (to !== `src/services/${family}/index.ts` || isTestCode(from) || OWN_DEFINITION_IMPORTS_ALLOWED.has(`${from} -> ${to}`)) return undefined;
  return `family ${family}'s ${from.split('/').slice(3).join('/')} imports its own index.ts (put what both need in a prefixes.ts, or pass it in)`;
}

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
  if (a.kind === 'family' && b.kind === 'family')
    return a.name === b.name ? ownDefinitionVerdict(from, to, a.name) : `family ${a.name} imports family ${b.name}`;
  if (a.kind === b.kind) return undefined;
  // Tests beside the code may start fogbank through the shared harness, and any test may read
  // the build's own settings (the start-up graph test reads the bundle options).
  if (b.kind === 'testing' && isTestCode(from) && from.startsWith('src/')) return undefined;
  if (b.kind === 'scripts' && (isTestCode(from) || a.kind === 'test')) return undefined;
  // The documentation test checks that every documented command line parses as the CLI parses it.
  if (b.kind === 'cli' && from.startsWith('test/docs/')) return undefined;
  if (MAY_IMPORT[a.kind]?.includes(b.kind)) return b.kind === 'family' && FACE_BOUND.has(a.kind) ? faceVerdict(from, to, b.name) : undefined;
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

/** importsIn lists every relative import of every source file under `root`, as repository paths. */
function importsIn(root: string): { readonly from: string; readonly to: string }[] {
  const absoluteRoot = resolve(root);
  const toRepo = (path: string): string => relative(absoluteRoot, path).split(sep).join('/');
  return sourceFiles(absoluteRoot).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8')).map((spec) => ({ from: toRepo(file), to: toRepo(resolve(dirname(file), spec)) })),
  );
}

/** importGraphViolations reads every source file under `root` and returns the imports that point the wrong way. */
export function importGraphViolations(root: string): Violation[] {
  return importsIn(root).flatMap(({ from, to }) => {
    const why = verdict(from, to);
    return why === undefined ? [] : [{ from, to, why }];
  });
}

/** staleAllowances lists the allowed exceptions (INTERNAL_IMPORTS_ALLOWED, OWN_DEFINITION_IMPORTS_ALLOWED) no file under `root` makes any more, to strike. */
export function staleAllowances(root: string): string[] {
  const present = new Set(importsIn(root).map(({ from, to }) => `${from} -> ${to}`));
  return [...INTERNAL_IMPORTS_ALLOWED, ...OWN_DEFINITION_IMPORTS_ALLOWED].filter((entry) => !present.has(entry));
}
