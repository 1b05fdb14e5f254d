import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const ALICE = { authorization: 'Bearer alice-token' };
const YAML = { ...ALICE, 'content-type': 'application/yaml' };
const TOO_DEEP_YAML = 'error converting YAML to JSON: yaml: exceeded max depth of 100';

describe('cluster bodies nested too deeply: a 400 in the Status dialect, every time, before parsing', () => {
  let h: ClusterHarness;
  before(async () => {
    // With the default policy: every authenticated user may create a SelfSubjectAccessReview.
    h = await startHarness({ bootstrapPolicy: true });
  });
  after(async () => h.close());

  const expectBadRequest = async (url: string, body: string, headers: Record<string, string>, message: string) => {
    const response = await h.call('POST', url, body, headers);
    assert.equal(response.status, 400, `${response.status} ${response.raw.body.slice(0, 200)}`);
    assert.deepEqual(response.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  };

  it("answers '['.repeat(20000) as application/yaml to SelfSubjectAccessReview with 400, over and over, and keeps serving", async () => {
    for (let round = 0; round < 6; round++) await expectBadRequest(SSAR, '['.repeat(20000), YAML, TOO_DEEP_YAML);
    const review = await h.call('POST', SSAR, { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }, ALICE);
    assert.equal(review.status, 201);
  });

  it('refuses deep YAML flow mappings, block sequences and indentation, naming the line past the first', async () => {
    await expectBadRequest(SSAR, `${'{a: '.repeat(5000)}1${'}'.repeat(5000)}`, YAML, TOO_DEEP_YAML);
    await expectBadRequest(SSAR, `${'- '.repeat(5000)}x`, YAML, TOO_DEEP_YAML);
    const indented = Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    await expectBadRequest(SSAR, `${indented} 1`, YAML, 'error converting YAML to JSON: yaml: line 101: exceeded max depth of 100');
  });

  it("refuses a billion-laughs body with go-yaml's excessive aliasing text", async () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    await expectBadRequest(SSAR, laughs.join('\n'), YAML, 'error converting YAML to JSON: yaml: document contains excessive aliasing');
  });

  it("refuses deep JSON with Go's scanner text, and deep apply-patch YAML the same as YAML", async () => {
    await expectBadRequest(
      SSAR,
      '['.repeat(20000),
      { ...ALICE, 'content-type': 'application/json' },
      "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
    );
    await expectBadRequest(
      ROLES,
      `{"metadata":${'{"a":'.repeat(200)}`,
      { 'content-type': 'application/json' },
      "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth",
    );
    await h.call('POST', ROLES, { metadata: { name: 'applied' }, rules: [] });
    const patched = await h.call('PATCH', `${ROLES}/applied?fieldManager=t`, '['.repeat(20000), { 'content-type': 'application/apply-patch+yaml' });
    assert.equal(patched.status, 400);
    assert.equal(patched.body.message, TOO_DEEP_YAML);
  });

  it('still takes an ordinary YAML body', async () => {
    const created = await h.call(
      'POST',
      ROLES,
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: from-yaml\nrules:\n- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["get"]\n',
      { 'content-type': 'application/yaml' },
    );
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
  });
});
