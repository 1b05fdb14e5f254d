import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('writes: create, replace, patch, delete, and bad input (reference §2, §4)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness({ bodyLimit: 64 * 1024 });
  });
  after(async () => h.close());

  async function unchanged(run: () => Promise<void>): Promise<void> {
    const before = await h.store.currentRevision();
    await run();
    assert.equal(await h.store.currentRevision(), before, 'nothing is stored');
  }

  it('creates with server-set metadata, generateName and managedFields; clears the namespace of cluster-scoped objects', async () => {
    const created = await h.call('POST', `${ROLES}?fieldManager=tester`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { generateName: 'gen-', namespace: 'ignored', labels: { app: 'x' } },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    });
    assert.equal(created.status, 201);
    const meta = created.body.metadata;
    assert.match(meta.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.match(meta.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(meta.creationTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(meta.namespace, undefined);
    assert.equal(meta.resourceVersion, String(await h.store.currentRevision()));
    assert.deepEqual(meta.managedFields, [
      {
        manager: 'tester',
        operation: 'Update',
        apiVersion: 'rbac.authorization.k8s.io/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:rules': {} },
      },
    ]);
    assert.deepEqual(Object.keys(created.body), ['kind', 'apiVersion', 'metadata', 'rules']);
  });

  it('answers AlreadyExists, and stores nothing on dryRun', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'dup' }, rules: [] });
    await unchanged(async () => {
      const again = await h.call('POST', ROLES, { metadata: { name: 'dup' }, rules: [] });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'clusterroles.rbac.authorization.k8s.io "dup" already exists',
        reason: 'AlreadyExists',
        details: { name: 'dup', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
        code: 409,
      });
      const dry = await h.call('POST', `${ROLES}?dryRun=All`, { metadata: { name: 'dry' }, rules: [] });
      assert.equal(dry.status, 201);
      assert.equal(dry.body.metadata.name, 'dry');
      assert.equal(dry.body.metadata.resourceVersion, undefined);
      const badDry = await h.call('POST', `${ROLES}?dryRun=Some`, { metadata: { name: 'dry' }, rules: [] });
      assert.equal(badDry.status, 422);
      assert.equal(badDry.body.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    });
    assert.equal((await h.call('GET', `${ROLES}/dry`)).status, 404);
  });

  it('handles unknown fields per fieldValidation: Warn by default, Strict 400, Ignore silent', async () => {
    const warned = await h.call('POST', ROLES, {
      metadata: { name: 'warned', extra: 1 },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], color: 'red' }],
      spec: {},
    });
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.headers['warning'], [
      '299 - "unknown field \\"metadata.extra\\""',
      '299 - "unknown field \\"rules[0].color\\""',
      '299 - "unknown field \\"spec\\""',
    ]);
    assert.equal(warned.body.spec, undefined);
    await unchanged(async () => {
      const strict = await h.call('POST', `${ROLES}?fieldValidation=Strict`, { metadata: { name: 'strict' }, rules: [], spec: {} });
      assert.equal(strict.status, 400);
      assert.equal(strict.body.message, 'ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "spec"');
      const wrong = await h.call('POST', `${ROLES}?fieldValidation=Loose`, { metadata: { name: 'x' } });
      assert.equal(wrong.status, 422);
      assert.equal(
        wrong.body.message,
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Warn", "Strict"',
      );
    });
    const ignored = await h.call('POST', `${ROLES}?fieldValidation=Ignore`, { metadata: { name: 'ignored' }, rules: [], spec: {} });
    assert.equal(ignored.status, 201);
    assert.equal(ignored.headers['warning'], undefined);
  });

  it('rejects malformed bodies, wrong types, kinds, versions and mismatched names/namespaces with 400s', async () => {
    await unchanged(async () => {
      const cases: [string, string, unknown, string][] = [
        ['POST', ROLES, '{"metadata": {', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
        ['POST', ROLES, '{"metadata": x}', "couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value"],
        [
          'POST',
          ROLES,
          [],
          'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
        ],
        [
          'POST',
          ROLES,
          { apiVersion: 'v1', kind: 'ClusterRole', metadata: { name: 'v' } },
          'the API version in the data (v1) does not match the expected API version (rbac.authorization.k8s.io/v1)',
        ],
        [
          'POST',
          ROLES,
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'k' } },
          'Role in version "v1" cannot be handled as a ClusterRole: no kind "Role" is registered for version "rbac.authorization.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
        ],
        [
          'POST',
          ROLES,
          { metadata: { name: 't' }, rules: [{ verbs: [1] }] },
          'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal number into Go struct field PolicyRule.rules.verbs of type string',
        ],
        [
          'POST',
          ROLES,
          { metadata: { name: 7 } },
          'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
        ],
        ['PUT', `${ROLES}/dup`, { metadata: { name: 'other' } }, 'the name of the object (other) does not match the name on the URL (dup)'],
        [
          'POST',
          '/apis/events.k8s.io/v1/namespaces/default/events',
          { metadata: { name: 'e', namespace: 'kube-system' } },
          'the namespace of the provided object does not match the namespace sent on the request',
        ],
      ];
      for (const [method, url, body, message] of cases) {
        const response = await h.call(method as 'POST', url, body);
        assert.equal(response.status, 400, `${method} ${url} ${JSON.stringify(body)}`);
        assert.equal(response.body.reason, 'BadRequest');
        assert.equal(response.body.message, message);
      }
      const tooBig = await h.call('POST', ROLES, { metadata: { name: 'big', annotations: { a: 'x'.repeat(70 * 1024) } } });
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.body.message, 'Request entity too large: limit is 65536');
      assert.equal(tooBig.body.reason, 'RequestEntityTooLarge');
      const xml = await h.call('POST', ROLES, '<ClusterRole/>', { 'content-type': 'application/xml' });
      assert.equal(xml.status, 415);
      assert.equal(
        xml.body.message,
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      );
      const created = await h.call('POST', '/apis/events.k8s.io/v1/events', { metadata: { name: 'x' } });
      assert.equal(created.status, 405);
      assert.equal(created.body.message, 'create is not supported on resources of kind "events.events.k8s.io"');
      const resourcesOfNothing = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/widgets');
      assert.equal(resourcesOfNothing.status, 404);
      assert.equal(resourcesOfNothing.body.message, 'the server could not find the requested resource');
      const rvOnCreate = await h.call('POST', ROLES, { metadata: { name: 'rv', resourceVersion: '3' } });
      assert.equal(rvOnCreate.status, 500);
      assert.equal(rvOnCreate.body.message, 'resourceVersion should not be set on objects to be created');
    });
  });

  it('accepts YAML bodies', async () => {
    const created = await h.call('POST', ROLES, 'metadata:\n  name: from-yaml\nrules:\n- verbs: [get]\n  nonResourceURLs: [/healthz]\n', {
      'content-type': 'application/yaml',
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.rules, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  });

  it('replaces: create-on-update (201), unconditional update, 409 on a stale resourceVersion', async () => {
    const made = await h.call('PUT', `${ROLES}/put-new`, { metadata: { name: 'put-new' }, rules: [] });
    assert.equal(made.status, 201);
    const updated = await h.call('PUT', `${ROLES}/put-new`, { metadata: { name: 'put-new', labels: { v: '2' } }, rules: [] });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.metadata.uid, made.body.metadata.uid);
    assert.equal(updated.body.metadata.creationTimestamp, made.body.metadata.creationTimestamp);
    await unchanged(async () => {
      const stale = await h.call('PUT', `${ROLES}/put-new`, { metadata: { name: 'put-new', resourceVersion: made.body.metadata.resourceVersion }, rules: [] });
      assert.equal(stale.status, 409);
      assert.equal(
        stale.body.message,
        'Operation cannot be fulfilled on clusterroles.rbac.authorization.k8s.io "put-new": the object has been modified; please apply your changes to the latest version and try again',
      );
      assert.equal(stale.body.reason, 'Conflict');
      const same = await h.call('PUT', `${ROLES}/put-new`, { ...updated.body });
      assert.equal(same.status, 200);
      assert.equal(same.body.metadata.resourceVersion, updated.body.metadata.resourceVersion, 'an unchanged object is not rewritten');
    });
    const ns = await h.call('PUT', '/api/v1/namespaces/not-there', { metadata: { name: 'not-there' } });
    assert.equal(ns.status, 404, 'namespaces are not created by PUT');
  });

  it('merge-patches (RFC 7386) and answers 415 for other patch types', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'patched', labels: { a: '1', b: '2' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/a'] }] });
    const patched = await h.call(
      'PATCH',
      `${ROLES}/patched?fieldManager=kubectl-label`,
      { metadata: { labels: { a: null, c: '3' } }, rules: [{ verbs: ['list'], nonResourceURLs: ['/b'] }] },
      MERGE,
    );
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.metadata.labels, { b: '2', c: '3' });
    assert.deepEqual(patched.body.rules, [{ verbs: ['list'], nonResourceURLs: ['/b'] }]);
    assert.deepEqual(
      patched.body.metadata.managedFields.map((entry: { manager: string; fieldsV1: unknown }) => [entry.manager, entry.fieldsV1]),
      [
        ['lightMyRequest', { 'f:metadata': { 'f:labels': { '.': {}, 'f:b': {} } } }],
        ['kubectl-label', { 'f:metadata': { 'f:labels': { 'f:c': {} } }, 'f:rules': {} }],
      ],
    );
    await unchanged(async () => {
      const json = await h.call('PATCH', `${ROLES}/patched`, { metadata: {} }, { 'content-type': 'application/json' });
      assert.equal(json.status, 415);
      assert.equal(
        json.body.message,
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      );
      const invalid = await h.call('PATCH', `${ROLES}/patched`, { rules: [{ nonResourceURLs: ['/c'] }] }, MERGE);
      assert.equal(invalid.status, 422);
      assert.equal(
        invalid.body.message,
        'ClusterRole.rbac.authorization.k8s.io "patched" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
      );
      const missing = await h.call('PATCH', `${ROLES}/nope`, { metadata: {} }, MERGE);
      assert.equal(missing.status, 404);
      const force = await h.call('PATCH', `${ROLES}/patched?force=true`, { metadata: {} }, MERGE);
      assert.equal(force.status, 422);
      assert.equal(force.body.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    });
  });

  it('deletes with a Status, keeps finalized objects until their finalizers go, checks preconditions', async () => {
    const made = await h.call('POST', ROLES, { metadata: { name: 'gone' }, rules: [] });
    const deleted = await h.call('DELETE', `${ROLES}/gone`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', group: 'rbac.authorization.k8s.io', kind: 'clusterroles', uid: made.body.metadata.uid },
    });
    const again = await h.call('DELETE', `${ROLES}/gone`);
    assert.equal(again.status, 404);
    assert.equal(again.body.message, 'clusterroles.rbac.authorization.k8s.io "gone" not found');

    await h.call('POST', ROLES, { metadata: { name: 'held', finalizers: ['example.com/hold'] }, rules: [] });
    const marked = await h.call('DELETE', `${ROLES}/held`, { propagationPolicy: 'Background' });
    assert.equal(marked.status, 200);
    assert.equal(marked.body.kind, 'ClusterRole');
    assert.equal(marked.body.metadata.deletionTimestamp, '2025-01-01T00:00:00Z');
    assert.equal((await h.call('GET', `${ROLES}/held`)).status, 200);
    const released = await h.call('PATCH', `${ROLES}/held`, { metadata: { finalizers: null } }, MERGE);
    assert.equal(released.status, 200);
    assert.equal((await h.call('GET', `${ROLES}/held`)).status, 404);

    await h.call('POST', ROLES, { metadata: { name: 'pre' }, rules: [] });
    await unchanged(async () => {
      const wrongUid = await h.call('DELETE', `${ROLES}/pre`, { preconditions: { uid: 'nope' } });
      assert.equal(wrongUid.status, 409);
      assert.match(
        wrongUid.body.message,
        /^Operation cannot be fulfilled on clusterroles.rbac.authorization.k8s.io "pre": Precondition failed: UID in precondition: nope, UID in object meta: [0-9a-f-]{36}$/,
      );
      const policy = await h.call('DELETE', `${ROLES}/pre`, { propagationPolicy: 'Sideways' });
      assert.equal(policy.status, 422);
      assert.equal(
        policy.body.message,
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"',
      );
      const dry = await h.call('DELETE', `${ROLES}/pre?dryRun=All`);
      assert.equal(dry.status, 200);
    });
    assert.equal((await h.call('GET', `${ROLES}/pre`)).status, 200);
  });

  it('deletes collections by selector and answers the deleted items', async () => {
    for (const name of ['c1', 'c2', 'c3']) await h.call('POST', ROLES, { metadata: { name, labels: { batch: name === 'c3' ? 'keep' : 'drop' } }, rules: [] });
    const deleted = await h.call('DELETE', `${ROLES}?labelSelector=batch%3Ddrop`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'ClusterRoleList');
    assert.deepEqual(
      deleted.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
      ['c1', 'c2'],
    );
    assert.equal((await h.call('GET', `${ROLES}/c3`)).status, 200);
    assert.equal((await h.call('GET', `${ROLES}/c1`)).status, 404);
  });

  it('protects the initial namespaces and cascades namespace deletion to its events', async () => {
    const names = (await h.call('GET', '/api/v1/namespaces')).body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const kept = await h.call('DELETE', '/api/v1/namespaces/kube-system');
    assert.equal(kept.status, 403);
    assert.equal(kept.body.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'tmp' } });
    await h.call('POST', '/api/v1/namespaces/tmp/events', {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'tmp' },
      reason: 'R',
    });
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/tmp')).status, 200);
    assert.equal((await h.call('GET', '/api/v1/namespaces/tmp/events')).body.items.length, 0);
    const badName = await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'Bad.Name' } });
    assert.equal(badName.status, 422);
    assert.equal(
      badName.body.message,
      "Namespace \"Bad.Name\" is invalid: metadata.name: Invalid value: \"Bad.Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  });

  it('answers 401 Unauthorized without a valid token, except on public paths', async () => {
    for (const headers of [{ authorization: '' }, { authorization: 'Bearer wrong' }]) {
      const response = await h.call('GET', ROLES, undefined, headers);
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    assert.equal((await h.call('GET', '/version', undefined, { authorization: '' })).status, 200);
    assert.equal((await h.call('GET', '/readyz', undefined, { authorization: '' })).body, 'ok');
    // A Basic password is read as the bearer token: alice is identified (then refused by RBAC, not 401).
    const basic = await h.call('GET', ROLES, undefined, { authorization: `Basic ${Buffer.from('fogbank:alice-token').toString('base64')}` });
    assert.equal(basic.status, 403);
    assert.equal(
      basic.body.message,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "alice@example.com" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
  });
});
