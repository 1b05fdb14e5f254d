import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConnectionFailure, redactUrl } from './postgres-connection.ts';

describe('postgres helpers', () => {
  it('tells lost connections from statement errors', () => {
    for (const error of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      assert.equal(isConnectionFailure(error), true, error.message);
    }
    for (const error of [Object.assign(new Error('duplicate key'), { code: '23505' }), new TypeError('x'), 'text', null]) {
      assert.equal(isConnectionFailure(error), false, String(error));
    }
  });

  it('hides the password of a URL', () => {
    assert.equal(redactUrl('postgres://u:secret@h:5432/db?sslmode=require'), 'postgres://u:***@h:5432/db?sslmode=require');
    assert.equal(redactUrl('postgres://u@h/db'), 'postgres://u@h/db');
  });
});
