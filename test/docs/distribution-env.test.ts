// docs/distribution.md's table of the image's environment variables, and the Containerfile's ENV:
// each FOGBANK_* variable is the one `fogbank start` reads for the flag beside it (envVariableOf),
// a flag that takes a value (switches come from no variable), and it does what the flag does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { envVariableOf, parseStartArgs, START_USAGE } from '../../src/cli/args.ts';
import { REPO } from '../harness/paths.ts';

/** valuedFlags are the `fogbank start` flags that take a value, from its help text. */
const valuedFlags = new Set([...START_USAGE.matchAll(/^ {2}--([\w-]+) \S/gm)].map((match) => match[1]!));

/** tableRows are the `| variables | flags | meaning |` rows of the documented table. */
function tableRows(): { variables: string[]; flags: string[] }[] {
  const text = readFileSync(join(REPO, 'docs/distribution.md'), 'utf8');
  const start = text.indexOf('| Variable | Flag | Meaning |');
  assert.ok(start !== -1, 'the table of environment variables is gone');
  const rows = text.slice(start).split('\n').slice(2);
  return rows
    .slice(
      0,
      rows.findIndex((row) => !row.startsWith('|')),
    )
    .map((row) => {
      const [variables, flags] = row.split('|').slice(1, 3);
      return { variables: [...variables!.matchAll(/`(FOGBANK_\w+)`/g)].map((m) => m[1]!), flags: [...flags!.matchAll(/`--([\w-]+)`/g)].map((m) => m[1]!) };
    });
}

describe("the image's environment variables as documented", () => {
  it('each documented FOGBANK_* variable is the one its flag reads, for a flag with a value', () => {
    const rows = tableRows();
    assert.ok(rows.length >= 8, `only ${rows.length} rows`);
    for (const { variables, flags } of rows) {
      assert.equal(variables.length, flags.length, `${variables.join(', ')} | ${flags.join(', ')}`);
      flags.forEach((flag, i) => {
        assert.ok(valuedFlags.has(flag), `--${flag} takes no value (or is no flag)`);
        assert.equal(variables[i], envVariableOf(flag));
      });
    }
    // The two the issue names, read as the flag would be.
    assert.equal(parseStartArgs([], { FOGBANK_ADMIN_TOKEN: 'from-env' }).adminToken, 'from-env');
    assert.equal(parseStartArgs([], { FOGBANK_STORE: 'postgres://fogbank@db:5432/fogbank' }).store, 'postgres://fogbank@db:5432/fogbank');
  });

  it("the Containerfile's FOGBANK_* settings are documented and parse", () => {
    const containerfile = readFileSync(join(REPO, 'Containerfile'), 'utf8');
    const set = Object.fromEntries([...containerfile.matchAll(/\b(FOGBANK_\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    assert.deepEqual(Object.keys(set).sort(), ['FOGBANK_DATA_DIR', 'FOGBANK_HOST', 'FOGBANK_PORT']);
    const documented = new Set(tableRows().flatMap((row) => row.variables));
    for (const variable of Object.keys(set)) assert.ok(documented.has(variable), `${variable} is not in docs/distribution.md's table`);
    const args = parseStartArgs([], set);
    assert.deepEqual([args.host, args.port, args.dataDir], ['0.0.0.0', 8780, '/var/lib/fogbank']);
  });
});
