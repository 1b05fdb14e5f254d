import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../testing/temp.ts';
import { ConfigError, loadConfigFile, parseFileConfig } from './config.ts';

describe('config file', () => {
  it('reads YAML tokens', async () => {
    const file = join(tempDir('config'), 'tokens.yaml');
    writeFileSync(file, 'tokens:\n  - token: t1\n    email: a@example.com\n    scopes: [compute]\n    permissions: ["compute.*"]\n');
    assert.deepEqual(await loadConfigFile(file), { tokens: [{ token: 't1', email: 'a@example.com', scopes: ['compute'], permissions: ['compute.*'] }] });
  });

  it('reads JSON too, and an empty file as no tokens', async () => {
    const dir = tempDir('config');
    writeFileSync(join(dir, 'a.json'), '{"tokens":[{"token":"x","email":"x@example.com"}]}');
    writeFileSync(join(dir, 'empty.yaml'), '');
    assert.deepEqual(await loadConfigFile(join(dir, 'a.json')), { tokens: [{ token: 'x', email: 'x@example.com', scopes: [], permissions: [] }] });
    assert.deepEqual(await loadConfigFile(join(dir, 'empty.yaml')), { tokens: [] });
  });

  it('reads an optional app list (the packages a principal may publish)', () => {
    assert.deepEqual(parseFileConfig({ tokens: [{ token: 'r', email: 'r@example.com', scopes: ['androidpublisher'], apps: ['com.example.app'] }] }), {
      tokens: [{ token: 'r', email: 'r@example.com', scopes: ['androidpublisher'], permissions: [], apps: ['com.example.app'] }],
    });
  });

  const bad: [string, unknown, string][] = [
    ['a list at the top', [], 'config: the top level must be a mapping'],
    ['an unknown key', { token: [] }, "config: unknown key 'token' (expected: tokens)"],
    ['tokens not a list', { tokens: {} }, "config: 'tokens' must be a list"],
    ['an unknown token key', { tokens: [{ token: 'a', email: 'a@b', role: 'x' }] }, "config: tokens[0]: unknown key 'role'"],
    ['an empty token', { tokens: [{ token: '', email: 'a@b' }] }, 'config: tokens[0].token must be a non-empty string'],
    ['a bad email', { tokens: [{ token: 'a', email: 'nobody' }] }, 'config: tokens[0].email must be an email address'],
    [
      'a repeated token',
      {
        tokens: [
          { token: 'a', email: 'a@b' },
          { token: 'a', email: 'c@d' },
        ],
      },
      'config: tokens[1]: the token is listed twice',
    ],
    ['scopes not strings', { tokens: [{ token: 'a', email: 'a@b', scopes: [1] }] }, 'config: tokens[0].scopes must be a list of strings'],
    ['apps not a list', { tokens: [{ token: 'a', email: 'a@b', apps: 'com.example.app' }] }, 'config: tokens[0].apps must be a list of strings'],
  ];
  for (const [title, raw, message] of bad) {
    it(`rejects ${title}`, () => {
      assert.throws(
        () => parseFileConfig(raw),
        (error: unknown) => error instanceof ConfigError && error.message === message,
      );
    });
  }

  it('names a missing or unparseable file', async () => {
    await assert.rejects(loadConfigFile('/nonexistent/fogbank.yaml'), /^ConfigError: cannot read config file \/nonexistent\/fogbank\.yaml: /);
    const file = join(tempDir('config'), 'bad.yaml');
    writeFileSync(file, 'tokens: [\n');
    await assert.rejects(
      loadConfigFile(file),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith(`config file ${file} is not valid YAML or JSON: `),
    );
  });
});
