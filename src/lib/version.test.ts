import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FOGBANK_VERSION } from './version.ts';

test('FOGBANK_VERSION is the version in package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(FOGBANK_VERSION, pkg.version);
});
