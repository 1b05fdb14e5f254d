import type { Random } from './random.ts';

/**
 * Nesting and expansion attacks for every content type a route reads: deep JSON (`[`, `{`,
 * closed or not), deep YAML in flow style (`[[[`, `{a: {a:`) and in block style (`- - -`,
 * indented mappings), and YAML alias bombs (billion laughs, aliases of deep nodes, self
 * reference). JSON is YAML too, so a YAML route gets both.
 */

/** DEPTHS are the nesting depths tried: just over a parser's usual limit, and far beyond it (20,000 `[` was the crash). */
const DEPTHS = [101, 1_000, 10_000, 20_000, 100_000] as const;

/** deepJson is a JSON text nested `depth` levels, closed or left open. */
export function deepJson(random: Random, depth = random.pick(DEPTHS)): string {
  const closed = random.chance(0.5);
  switch (random.int(3)) {
    case 0:
      return `${'['.repeat(depth)}${closed ? `1${']'.repeat(depth)}` : ''}`;
    case 1:
      return `${'{"a":'.repeat(depth)}${closed ? `1${'}'.repeat(depth)}` : ''}`;
    default:
      return `{"metadata":{"name":"x"},"spec":${'[{"a":'.repeat(depth >> 1)}${closed ? `1${'}]'.repeat(depth >> 1)}` : ''}}`;
  }
}

/** deepYaml is a YAML text nested `depth` levels in flow or block style. */
export function deepYaml(random: Random, depth = random.pick(DEPTHS)): string {
  switch (random.int(5)) {
    case 0:
      return '['.repeat(depth);
    case 1:
      return `${'{a: '.repeat(depth)}1${random.chance(0.5) ? '}'.repeat(depth) : ''}`;
    case 2:
      // Compact block sequences: each `- ` opens a level.
      return `${'- '.repeat(depth)}x\n`;
    case 3: {
      // Indented block mappings, one space a level (quadratic in size, so kept under the body limit).
      const levels = Math.min(depth, 1_400);
      let text = '';
      for (let i = 0; i < levels; i++) text += `${' '.repeat(i)}a:\n`;
      return `${text}${' '.repeat(levels)}b: 1\n`;
    }
    default:
      return `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels: ${'['.repeat(depth)}\n`;
  }
}

/** aliasBomb is a YAML text whose aliases expand far beyond its size, or refer to themselves. */
export function aliasBomb(random: Random): string {
  switch (random.int(4)) {
    case 0: {
      // Billion laughs: nine levels, each ten aliases of the one before.
      const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(',')}]`);
      return `${lines.join('\n')}\n`;
    }
    case 1: {
      // The same in mappings, under fields an object has.
      const lines = ['metadata:', '  name: x', '  labels: &l0 {a: b, c: d, e: f, g: h}'];
      for (let i = 1; i <= 12; i++) lines.push(`  annotations${i}: &l${i} [*l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}]`);
      return `apiVersion: v1\nkind: Namespace\n${lines.join('\n')}\n`;
    }
    case 2:
      // An alias of a deep node, used many times.
      return `deep: &d ${'['.repeat(500)}${']'.repeat(500)}\nmany: [${Array.from({ length: 2000 }, () => '*d').join(',')}]\n`;
    default:
      return random.pick(['a: &a [*a]\n', '&a [*a, *a]\n', 'a: *undefined\n', 'a: &a\n  b: *a\n', '<<: *a\n']);
  }
}

/** CLUSTER_BODY_TYPES are the content types a cluster create or update reads (JSON and YAML); patches add their own. */
export const CLUSTER_BODY_TYPES = ['application/json', 'application/yaml', 'application/json; charset=utf-8', 'application/yaml; charset=utf-8'] as const;

/** deepBody is a deep or expanding body for `contentType`: JSON-only types get deep JSON, YAML types any of the YAML attacks too. */
export function deepBody(contentType: string, random: Random): string {
  const yaml = contentType.includes('yaml');
  if (!yaml || random.chance(0.3)) return deepJson(random);
  return random.chance(0.7) ? deepYaml(random) : aliasBomb(random);
}
