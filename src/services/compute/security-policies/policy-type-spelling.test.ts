import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Links } from '../shared/links.ts';
import { buildPolicy, patchPolicy } from './policy-mutations.ts';
import { renderPolicy, storedPolicy, type StoredPolicy } from './policy.ts';

const LINKS: Links = { base: 'http://localhost/compute/v1/' };
const NEW = { project: 'p', scope: { kind: 'global' } as const, id: '1', creationTime: 0, fingerprint: 'Qo+NUh9q3Og=' };

describe('security policy types in either spelling', () => {
  it('stores the real value and answers in the spelling the client used; the real one when none was given', () => {
    const cases: [string | undefined, string, string | undefined][] = [
      ['CLOUD_ARMOR', 'CLOUD_ARMOR', undefined],
      ['EDGEGUARD', 'CLOUD_ARMOR', 'spec'],
      ['EDGEGUARD_EDGE', 'CLOUD_ARMOR_EDGE', 'spec'],
      ['CLOUD_ARMOR_NETWORK', 'CLOUD_ARMOR_NETWORK', undefined],
      [undefined, 'CLOUD_ARMOR', undefined],
    ];
    for (const [given, stored, spelling] of cases) {
      const policy = buildPolicy({ name: 'pol', ...(given === undefined ? {} : { type: given }) }, NEW);
      assert.equal(policy.type, stored);
      assert.equal(policy.typeSpelling, spelling);
      assert.equal(renderPolicy(policy, LINKS)['type'], given ?? 'CLOUD_ARMOR');
      // The remembered spelling is never rendered itself.
      assert.equal(Object.keys(renderPolicy(policy, LINKS)).includes('typeSpelling'), false);
    }
  });

  it('validates by the real value whichever spelling was used', () => {
    const regional = { ...NEW, scope: { kind: 'region', name: 'us-central1' } as const };
    for (const type of ['EDGEGUARD_EDGE', 'CLOUD_ARMOR_EDGE']) {
      assert.throws(() => buildPolicy({ name: 'pol', type }, regional), {
        message: `Invalid value for field 'resource.type': '${type}'. Regional security policies must be of type CLOUD_ARMOR, CLOUD_ARMOR_NETWORK or CLOUD_ARMOR_INTERNAL_SERVICE.`,
      });
    }
    // A redirect is for global CLOUD_ARMOR policies, however the type was spelled.
    const redirect = { priority: 10, action: 'redirect', redirectOptions: { type: 'GOOGLE_RECAPTCHA' }, match: { expr: { expression: 'true' } } };
    assert.equal(buildPolicy({ name: 'pol', type: 'EDGEGUARD', rules: [redirect] }, NEW).rules.length, 2);
    assert.throws(
      () => buildPolicy({ name: 'pol', type: 'EDGEGUARD_EDGE', rules: [redirect] }, NEW),
      /only supported in global security policies of type CLOUD_ARMOR\./,
    );
  });

  it('patch takes the same type in the other spelling as no change, and keeps the policy’s spelling', () => {
    const policy = buildPolicy({ name: 'pol', type: 'EDGEGUARD' }, NEW);
    const patched = patchPolicy(policy, { type: 'CLOUD_ARMOR', fingerprint: 'Qo-NUh9q3Og', description: 'd' }, undefined, { fingerprint: 'AAAAAAAAAAA=' });
    assert.equal(renderPolicy(patched, LINKS)['type'], 'EDGEGUARD');
    assert.throws(
      () => patchPolicy(policy, { type: 'CLOUD_ARMOR_EDGE', fingerprint: 'Qo+NUh9q3Og=' }, undefined, { fingerprint: 'x' }),
      /The type of a security policy cannot be changed\./,
    );
  });

  it('reads a policy stored by an earlier version with the spec spelling as the real value', () => {
    // Deliberately outside StoredPolicy's type: the spelling an earlier version stored, which reading must convert.
    const legacy = { ...buildPolicy({ name: 'pol' }, NEW), type: 'EDGEGUARD_NETWORK' } as unknown as StoredPolicy;
    const read = storedPolicy(legacy);
    assert.equal(read.type, 'CLOUD_ARMOR_NETWORK');
    assert.equal(renderPolicy(read, LINKS)['type'], 'EDGEGUARD_NETWORK');
  });
});
