import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { startPostgres } from './postgres-server.ts';

/**
 * The throw-away PostgreSQL server of the suite starts whatever directory the suite runs from:
 * here a clone-like directory inside a private (0700) one, as `mktemp -d` makes in CI
 * containers. As root the server runs as another user, who cannot enter it; the fixture starts
 * initdb and postgres in the server's own temporary directory instead.
 */
test('the test PostgreSQL server starts when the suite runs from inside a private (0700) directory', async () => {
  const outer = mkdtempSync(join(tmpdir(), 'fogbank-private-'));
  const repo = join(outer, 'repo');
  mkdirSync(repo);
  assert.equal(statSync(outer).mode & 0o777, 0o700);
  const previous = process.cwd();
  process.chdir(repo);
  try {
    const server = await startPostgres();
    try {
      const client = new pg.Client({ connectionString: server.url() });
      await client.connect();
      try {
        assert.equal((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1);
      } finally {
        await client.end();
      }
      // A restart spawns postgres again, from the same place.
      await server.restart();
    } finally {
      await server.stop();
    }
  } finally {
    process.chdir(previous);
    rmSync(outer, { recursive: true, force: true });
  }
});
