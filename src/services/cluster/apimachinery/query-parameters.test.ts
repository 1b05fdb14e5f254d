import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch } from '../../../testing/watch-reader.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const V = 'rbac.authorization.k8s.io/v1';

describe('cluster query booleans as the apiserver reads them: only 0 and false are false', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness();
    base = await h.listen();
    await h.call('POST', ROLES, { metadata: { name: 'present' }, rules: [] });
  });
  after(async () => h.close());

  it('watches for watch=yes, watch=True, watch=1 and a bare watch, and lists for watch=0 and watch=FALSE', async () => {
    for (const query of ['watch=yes', 'watch=True', 'watch=1', 'watch']) {
      const watch = await openWatch(`${base}${ROLES}?${query}&timeoutSeconds=1`, ADMIN_TOKEN);
      assert.equal(watch.status, 200, query);
      await watch.ended;
      assert.deepEqual(
        watch.events.map((event) => `${event.type}:${event.object.metadata.name}`),
        ['ADDED:present'],
        query,
      );
    }
    for (const query of ['watch=0', 'watch=FALSE', 'watch=false']) {
      const list = await h.call('GET', `${ROLES}?${query}`);
      assert.equal(list.body.kind, 'ClusterRoleList', query);
    }
  });

  it('reads sendInitialEvents=False as a value given (forbidden for a list), not as absent', async () => {
    const list = await h.call('GET', `${ROLES}?sendInitialEvents=False`);
    assert.equal(list.status, 422);
    assert.equal(list.body.message, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  });

  it('takes conflicting fields for force=True and force=1 (what the Python client sends), not for force=false', async () => {
    const apply = (manager: string, verbs: string[], force: string) =>
      h.call(
        'PATCH',
        `${ROLES}/contested?fieldManager=${manager}${force}`,
        { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'contested' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }] },
        APPLY,
      );
    assert.equal((await apply('first', ['get'], '')).status, 201);
    assert.equal((await apply('second', ['list'], '')).status, 409);
    assert.equal((await apply('second', ['list'], '&force=false')).status, 409);
    assert.equal((await apply('second', ['list'], '&force=FALSE')).status, 409);
    const forced = await apply('second', ['list'], '&force=True');
    assert.equal(forced.status, 200);
    assert.deepEqual(forced.body.rules[0].verbs, ['list']);
    assert.equal((await apply('first', ['watch'], '&force=1')).status, 200);
  });
});

describe('cluster query numbers as the apiserver parses them: int64 and uint64, never rounded', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness();
    base = await h.listen();
    for (const name of ['a', 'b', 'c']) await h.call('POST', ROLES, { metadata: { name }, rules: [] });
  });
  after(async () => h.close());

  const badRequest = async (method: 'GET' | 'DELETE', url: string, message: string) => {
    const response = await h.call(method, url);
    assert.equal(response.status, 400, `${url}: ${response.raw.body}`);
    assert.deepEqual(response.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  };

  it('answers limit beyond int64 with strconv.ParseInt\'s 400, and takes the int64 maximum as "everything"', async () => {
    await badRequest('GET', `${ROLES}?limit=9223372036854775808`, 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    await badRequest('GET', `${ROLES}?limit=${'9'.repeat(200)}`, `strconv.ParseInt: parsing "${'9'.repeat(200)}": value out of range`);
    await badRequest('GET', `${ROLES}?limit=`, 'strconv.ParseInt: parsing "": invalid syntax');
    await badRequest('GET', `${ROLES}?limit=1e3`, 'strconv.ParseInt: parsing "1e3": invalid syntax');
    for (const limit of ['9223372036854775807', '-9223372036854775808', '0']) {
      const list = await h.call('GET', `${ROLES}?limit=${limit}`);
      assert.equal(list.status, 200, limit);
      assert.deepEqual(
        list.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
        ['a', 'b', 'c'],
      );
      assert.equal(list.body.metadata.continue, undefined);
    }
  });

  it('reads the numbers before the selectors, timeoutSeconds before limit (ListOptions field order)', async () => {
    await badRequest('GET', `${ROLES}?labelSelector=a%20in%20(b&limit=x`, 'strconv.ParseInt: parsing "x": invalid syntax');
    await badRequest('GET', `${ROLES}?limit=x&timeoutSeconds=y`, 'strconv.ParseInt: parsing "y": invalid syntax');
  });

  it('answers a resourceVersion that is no uint64 with the 400 at once, on list, get and watch', async () => {
    const cases: [string, string][] = [
      ['18446744073709551616', 'value out of range'],
      ['1'.repeat(200), 'value out of range'],
      ['Infinity', 'invalid syntax'],
      ['-1', 'invalid syntax'],
      ['1.5', 'invalid syntax'],
      ['1e3', 'invalid syntax'],
    ];
    for (const [rv, problem] of cases) {
      const message = `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${problem}`;
      await badRequest('GET', `${ROLES}?resourceVersion=${rv}`, message);
      await badRequest('GET', `${ROLES}?resourceVersion=${rv}&resourceVersionMatch=Exact`, message);
      await badRequest('GET', `${ROLES}/a?resourceVersion=${rv}`, message);
      await badRequest('GET', `${ROLES}?watch=true&resourceVersion=${rv}`, message);
    }
  });

  it('keeps the "Too large resource version" wait for a valid uint64 ahead of the store, every digit kept', async () => {
    const pending = h.call('GET', `${ROLES}?resourceVersion=18446744073709551615`);
    // The wait runs on the injected clock: move it past the bound.
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      h.clock.advance(100);
    }
    const response = await pending;
    assert.equal(response.status, 504);
    assert.equal(response.body.message, `Timeout: Too large resource version: 18446744073709551615, current: ${await h.store.currentRevision()}`);
  });

  it('answers timeoutSeconds beyond int64 with the 400, and a huge valid one keeps the watch open', async () => {
    await badRequest('GET', `${ROLES}?watch=true&timeoutSeconds=9223372036854775808`, 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    const watch = await openWatch(
      `${base}${ROLES}?watch=true&timeoutSeconds=9223372036854775807&resourceVersion=${await h.store.currentRevision()}`,
      ADMIN_TOKEN,
    );
    assert.equal(watch.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await h.call('POST', ROLES, { metadata: { name: 'later' }, rules: [] });
    await watch.until((events) => events.length === 1, 'the ADDED event on a watch that did not time out');
    assert.equal(watch.events[0]!.object.metadata.name, 'later');
    watch.close();
  });

  it('answers gracePeriodSeconds that strconv.ParseInt cannot read with the 400 before deleting', async () => {
    await badRequest('DELETE', `${ROLES}/a?gracePeriodSeconds=soon`, 'strconv.ParseInt: parsing "soon": invalid syntax');
    await badRequest('DELETE', `${ROLES}/a?gracePeriodSeconds=99999999999999999999`, 'strconv.ParseInt: parsing "99999999999999999999": value out of range');
    await badRequest('DELETE', `${ROLES}?gracePeriodSeconds=1.5`, 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assert.equal((await h.call('GET', `${ROLES}/a`)).status, 200, 'nothing was deleted');
    assert.equal((await h.call('DELETE', `${ROLES}/a?gracePeriodSeconds=0`)).status, 200);
  });
});
