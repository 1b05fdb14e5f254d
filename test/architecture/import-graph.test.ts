import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importGraphViolations, importsOf, staleAllowances } from './import-graph.ts';

describe('the one-way folder graph', () => {
  it('holds for the whole tree: no import points the wrong way', () => {
    assert.deepEqual(importGraphViolations('.'), []);
  });

  it('allows no exception that no file makes any more (strike it from its list)', () => {
    assert.deepEqual(staleAllowances('.'), []);
  });

  it('names each wrong-way import of a tree that has them', () => {
    const found = importGraphViolations('test/fixtures/import-graph').map(({ from, to, why }) => `${from} -> ${to}: ${why}`);
    assert.deepEqual(found.sort(), [
      "bench/mail-send.ts -> src/services/mail/send.ts: bench imports family mail's internal send.ts (its face is public.ts)",
      'src/cli/inbox.ts -> src/services/mail/public.ts: cli imports family mail',
      "src/console/inbox.test.ts -> src/services/mail/send.ts: console imports family mail's internal send.ts (its face is public.ts)",
      'src/console/mail.ts -> src/cli/args.ts: console imports cli',
      "src/console/mail.ts -> src/services/mail/send.ts: console imports family mail's internal send.ts (its face is public.ts)",
      'src/core/router.ts -> src/services/mail/send.ts: core imports family mail',
      'src/guard/proxy.ts -> src/cli/args.ts: guard imports cli',
      "src/guard/proxy.ts -> src/services/cluster/rbac.ts: guard imports family cluster's internal rbac.ts (its face is public.ts)",
      'src/lib/dir.ts -> src/services/cluster/rbac.ts: lib imports family cluster',
      'src/lib/dir.ts -> test/harness/temp.ts: lib imports test',
      'src/plugin/host.ts -> src/cli/args.ts: plugin imports cli',
      "src/services/mail/register.ts -> src/services/mail/index.ts: family mail's register.ts imports its own index.ts (put what both need in a prefixes.ts, or pass it in)",
      'src/services/mail/send.ts -> src/console/mail.ts: family mail imports console',
      'src/services/mail/send.ts -> src/guard/proxy.ts: family mail imports guard',
      'src/services/mail/send.ts -> src/services/cluster/rbac.ts: family mail imports family cluster',
      'src/store/store.ts -> src/core/log.ts: store imports core',
      'test/e2e/cli.test.ts -> src/cli/args.ts: test imports cli',
    ]);
  });

  it('reads static imports, re-exports and dynamic imports, not package imports', () => {
    const text =
      "import a from './a.ts';\nimport type { B } from '../b.ts';\nexport { c } from './c.ts';\nimport './side.ts';\nconst d = await import('./d.ts');\nimport e from 'node:fs';";
    assert.deepEqual(importsOf(text), ['./a.ts', '../b.ts', './c.ts', './side.ts', './d.ts']);
  });
});
