import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpressionCache } from './expression-cache.ts';

describe('ExpressionCache', () => {
  const regional = { scope: 'regional', policyType: 'CLOUD_ARMOR' } as const;
  const global = { scope: 'global', policyType: 'CLOUD_ARMOR' } as const;

  it('computes a verdict once per text, scope and type', () => {
    const cache = new ExpressionCache();
    let calls = 0;
    const check = (verdict: string | undefined) => () => {
      calls += 1;
      return verdict;
    };
    assert.equal(cache.verdict('x', regional, check('bad')), 'bad');
    assert.equal(cache.verdict('x', regional, check('other')), 'bad');
    assert.equal(cache.verdict('x', global, check(undefined)), undefined);
    assert.equal(cache.verdict('x', global, check('never')), undefined);
    assert.equal(calls, 2);
  });

  it('forgets the oldest verdict beyond its capacity', () => {
    const cache = new ExpressionCache(2);
    cache.verdict('a', regional, () => 'A');
    cache.verdict('b', regional, () => 'B');
    cache.verdict('c', regional, () => 'C');
    assert.equal(
      cache.verdict('a', regional, () => 'A again'),
      'A again',
    );
    assert.equal(
      cache.verdict('c', regional, () => 'C again'),
      'C',
    );
  });
});
