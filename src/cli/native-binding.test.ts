import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missingSqliteBindingHint } from './native-binding.ts';

describe('the advice for a better-sqlite3 without its binary', () => {
  it("follows the bindings package's message for better_sqlite3.node, and nothing else", () => {
    const message = 'Could not locate the bindings file. Tried:\n → /p/node_modules/better-sqlite3/build/better_sqlite3.node';
    assert.match(missingSqliteBindingHint(message) ?? '', /^better-sqlite3's install script did not run .*\n.*--allow-scripts=better-sqlite3.*\n.*--ephemeral/);
    assert.equal(missingSqliteBindingHint('Could not locate the bindings file. Tried:\n → /p/other.node'), undefined);
    assert.equal(missingSqliteBindingHint('EACCES: permission denied'), undefined);
  });
});
