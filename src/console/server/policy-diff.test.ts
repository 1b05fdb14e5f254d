import assert from 'node:assert/strict';
import { test } from 'node:test';
import { policyDiff } from './policy-diff.ts';

const rule = (priority: number, action: string, extra: Record<string, unknown> = {}) => ({
  priority,
  action,
  match: { config: { srcIpRanges: ['*'] } },
  ...extra,
});

test('a created policy lists its rules and fields; fingerprints, ids and times are left out', () => {
  assert.deepEqual(policyDiff(null, { name: 'p', fingerprint: 'f', id: '1', creationTime: 5, rules: [rule(2147483647, 'allow')] }), [
    { op: '+', path: 'rules[2147483647]', after: rule(2147483647, 'allow') },
    { op: '+', path: 'name', after: 'p' },
  ]);
});

test('rules are matched by priority: added, removed, and changed field by field, in priority order', () => {
  const before = { name: 'p', fingerprint: 'a', description: '', rules: [rule(1000, 'allow'), rule(10, 'deny(403)')] };
  const after = { name: 'p', fingerprint: 'b', description: 'edge', rules: [rule(1000, 'deny(404)', { preview: true }), rule(5, 'allow')] };
  assert.deepEqual(policyDiff(before, after), [
    { op: '+', path: 'rules[5]', after: rule(5, 'allow') },
    { op: '-', path: 'rules[10]', before: rule(10, 'deny(403)') },
    { op: '~', path: 'rules[1000].action', before: 'allow', after: 'deny(404)' },
    { op: '+', path: 'rules[1000].preview', after: true },
    { op: '~', path: 'description', before: '', after: 'edge' },
  ]);
});

test('nested objects are compared member by member; arrays as a whole', () => {
  const before = { rules: [rule(1, 'allow')], labels: { a: '1', b: '2' } };
  const after = { rules: [{ ...rule(1, 'allow'), match: { config: { srcIpRanges: ['10.0.0.0/8'] } } }], labels: { a: '1' } };
  assert.deepEqual(policyDiff(before, after), [
    { op: '~', path: 'rules[1].match.config.srcIpRanges', before: ['*'], after: ['10.0.0.0/8'] },
    { op: '-', path: 'labels.b', before: '2' },
  ]);
});
