import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { encodeContinue } from './continue-token.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

function names(body: { items: { metadata: { name: string } }[] }): string[] {
  return body.items.map((item) => item.metadata.name);
}

describe('list: resourceVersion, pagination and selectors (reference §3)', () => {
  let h: ClusterHarness;
  // The store revision before the test's objects (after whatever a fresh cluster is seeded with).
  let base = 0;
  before(async () => {
    // A short change feed, so compaction can be forced.
    h = await startHarness({ store: { changeRetention: 20 } });
    base = await h.store.currentRevision();
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      await h.call('POST', ROLES, { metadata: { name, labels: { letter: name, vowel: 'ae'.includes(name) ? 'yes' : 'no' } }, rules: [] });
  });
  after(async () => h.close());

  it('answers the store revision as the list resourceVersion and each object its own', async () => {
    const list = await h.call('GET', ROLES);
    assert.equal(list.body.metadata.resourceVersion, String(await h.store.currentRevision()));
    assert.deepEqual(names(list.body), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(list.body.items[0].metadata.resourceVersion, String(base + 1));
    assert.equal(list.body.items[0].kind, undefined);
  });

  it('pages with limit/continue, every page consistent at the first page revision', async () => {
    const first = await h.call('GET', `${ROLES}?limit=2`);
    assert.deepEqual(names(first.body), ['a', 'b']);
    const rv = first.body.metadata.resourceVersion;
    assert.equal(first.body.metadata.continue, encodeContinue(Number(rv), 'b'));
    assert.equal(Buffer.from(first.body.metadata.continue, 'base64url').toString(), `{"v":"meta.k8s.io/v1","rv":${rv},"start":"b\\u0000"}`);
    // Writes between pages do not show in later pages.
    await h.call('DELETE', `${ROLES}/c`);
    await h.call('POST', ROLES, { metadata: { name: 'bb' }, rules: [] });
    await h.call('PATCH', `${ROLES}/d`, { metadata: { labels: { changed: 'yes' } } }, { 'content-type': 'application/merge-patch+json' });
    const second = await h.call('GET', `${ROLES}?limit=2&continue=${first.body.metadata.continue}`);
    assert.deepEqual(names(second.body), ['c', 'd']);
    assert.equal(second.body.metadata.resourceVersion, rv);
    assert.equal(second.body.items[1].metadata.labels.changed, undefined);
    const third = await h.call('GET', `${ROLES}?limit=2&continue=${second.body.metadata.continue}`);
    assert.deepEqual(names(third.body), ['e']);
    assert.equal(third.body.metadata.continue, undefined);
    const now = await h.call('GET', ROLES);
    assert.deepEqual(names(now.body), ['a', 'b', 'bb', 'd', 'e']);
  });

  it('serves Exact lists at an older revision and NotOlderThan at the newest', async () => {
    const all = base + 5;
    const exact = await h.call('GET', `${ROLES}?resourceVersion=${all}&resourceVersionMatch=Exact`);
    assert.deepEqual(names(exact.body), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(exact.body.metadata.resourceVersion, String(all));
    const paged = await h.call('GET', `${ROLES}?resourceVersion=${all}&limit=10`);
    assert.deepEqual(names(paged.body), ['a', 'b', 'c', 'd', 'e'], 'limit with a resourceVersion is Exact');
    const notOlder = await h.call('GET', `${ROLES}?resourceVersion=${all}&resourceVersionMatch=NotOlderThan`);
    assert.deepEqual(names(notOlder.body), ['a', 'b', 'bb', 'd', 'e']);
    const any = await h.call('GET', `${ROLES}?resourceVersion=0`);
    assert.deepEqual(names(any.body), ['a', 'b', 'bb', 'd', 'e']);
  });

  it('rejects invalid ListOptions with the real 422 texts', async () => {
    const cases: [string, string][] = [
      [
        'resourceVersionMatch=Exact',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
      [
        'resourceVersion=0&resourceVersionMatch=Exact',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ],
      [
        'resourceVersion=1&resourceVersionMatch=Newest',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
      ],
      ['sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
      [
        'watch=true&resourceVersionMatch=NotOlderThan',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      ],
      [
        'watch=true&sendInitialEvents=true',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ],
    ];
    for (const [query, message] of cases) {
      const response = await h.call('GET', `${ROLES}?${query}`);
      assert.equal(response.status, 422, query);
      assert.equal(response.body.message, message);
      assert.deepEqual(response.body.details, { group: 'meta.k8s.io', kind: 'ListOptions', causes: response.body.details.causes });
    }
  });

  it('rejects bad values, tokens and selectors with 400s', async () => {
    const cases: [string, string][] = [
      ['resourceVersion=abc', 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
      ['limit=ten', 'strconv.ParseInt: parsing "ten": invalid syntax'],
      ['continue=%21%21', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0'],
      [
        `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a\\u0000"}').toString('base64url')}`,
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      ],
      [`continue=${encodeContinue(3, 'a')}&resourceVersion=3`, 'specifying resource version is not allowed when using continue'],
      ['labelSelector=a%20in%20(b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ];
    for (const [query, message] of cases) {
      const response = await h.call('GET', `${ROLES}?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.reason, 'BadRequest');
      assert.equal(response.body.message, message);
    }
  });

  it('filters with the full label selector syntax', async () => {
    const select = async (selector: string) => names((await h.call('GET', `${ROLES}?labelSelector=${encodeURIComponent(selector)}`)).body);
    assert.deepEqual(await select('vowel=yes'), ['a', 'e']);
    assert.deepEqual(await select('vowel!=yes'), ['b', 'bb', 'd']);
    assert.deepEqual(await select('letter in (a,d),vowel'), ['a', 'd']);
    assert.deepEqual(await select('letter notin (a,d),letter'), ['b', 'e']);
    assert.deepEqual(await select('!letter'), ['bb']);
    assert.deepEqual(await select('changed'), ['d']);
  });

  it('answers 410 Expired for compacted revisions, with the inconsistent continue token', async () => {
    const first = await h.call('GET', `${ROLES}?limit=2`);
    for (let i = 0; i < 25; i++) await h.call('POST', '/api/v1/namespaces', { metadata: { name: `filler-${i}` } });
    // Now rewrite a key on the first page's snapshot, so the old state is truly needed.
    await h.call('PATCH', `${ROLES}/d`, { metadata: { labels: { again: 'yes' } } }, { 'content-type': 'application/merge-patch+json' });
    const expired = await h.call('GET', `${ROLES}?limit=2&continue=${first.body.metadata.continue}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
    assert.equal(
      expired.body.message,
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    assert.equal(expired.body.metadata.continue, encodeContinue(-1, 'b'));
    const rest = await h.call('GET', `${ROLES}?limit=10&continue=${expired.body.metadata.continue}`);
    assert.deepEqual(names(rest.body), ['bb', 'd', 'e']);
    const exact = await h.call('GET', `${ROLES}?resourceVersion=13&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 410);
    assert.equal(exact.body.message, 'The resourceVersion for the provided list is too old.');
  });

  it('answers 504 for a resourceVersion the store has not reached', async () => {
    const current = await h.store.currentRevision();
    // The wait is bounded by the injected clock: jump it past the bound while the request waits.
    const pending = h.call('GET', `${ROLES}/a?resourceVersion=${current + 100}`);
    setTimeout(() => h.clock.advance(10_000), 100);
    const response = await pending;
    assert.equal(response.status, 504);
    assert.deepEqual(response.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Timeout: Too large resource version: ${current + 100}, current: ${current}`,
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      code: 504,
    });
    assert.equal(response.headers['retry-after'], '1');
  });
});
