import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../../testing/cluster-harness.ts';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const POLICIES = `${ADMISSION}/validatingadmissionpolicies`;
const BINDINGS = `${ADMISSION}/validatingadmissionpolicybindings`;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ALICE = { authorization: 'Bearer alice-token' };
const ALICE_INFO = '&{alice@example.com  [devs system:authenticated] map[]}';
const roleRef = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

const policy = (name: string, paramKind?: { apiVersion: string; kind: string }, message = 'no') => ({
  metadata: { name },
  spec: {
    ...(paramKind === undefined ? {} : { paramKind }),
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    validations: [{ expression: 'true', message }],
  },
});

const binding = (name: string, policyName: string, paramRef?: Record<string, unknown>, actions = ['Deny']) => ({
  metadata: { name },
  spec: { policyName, ...(paramRef === undefined ? {} : { paramRef }), validationActions: actions },
});

describe('write-time authorization of paramKind and paramRef', () => {
  let h: ClusterHarness;
  const grant = async (name: string, rules: unknown[], namespace?: string) => {
    const roles = namespace === undefined ? `${RBAC}/clusterroles` : `${RBAC}/namespaces/${namespace}/roles`;
    const bindings = namespace === undefined ? `${RBAC}/clusterrolebindings` : `${RBAC}/namespaces/${namespace}/rolebindings`;
    assert.equal((await h.call('POST', roles, { metadata: { name }, rules })).status, 201);
    const subjects = [{ kind: 'User', name: 'alice@example.com' }];
    const ref = roleRef(namespace === undefined ? 'ClusterRole' : 'Role', name);
    assert.equal((await h.call('POST', bindings, { metadata: { name }, roleRef: ref, subjects })).status, 201);
  };
  // A PUT of the stored object changed by `change`, read again after a conflict (the type-checking controller writes a policy's status after a spec change).
  const putFresh = async (path: string, change: (spec: Record<string, unknown>) => Record<string, unknown>) => {
    for (let attempt = 0; ; attempt++) {
      const stored = (await h.call('GET', path)).body;
      const answer = await h.call('PUT', path, { ...stored, spec: change(stored.spec) }, ALICE);
      if (answer.status !== 409 || attempt === 4) return answer;
    }
  };
  const revoke = async (name: string) => assert.equal((await h.call('DELETE', `${RBAC}/clusterrolebindings/${name}`)).status, 200);

  before(async () => {
    h = await startHarness();
    // alice may write the admission configuration, nothing else yet.
    await grant('admission-writer', [
      { verbs: ['*'], apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'] },
    ]);
  });
  after(async () => h.close());

  it('a policy with paramKind needs get on every object of the kind, resolved through the served kinds', async () => {
    assert.equal((await h.call('POST', POLICIES, policy('plain'), ALICE)).status, 201);
    const refused = await h.call('POST', POLICIES, policy('cm', { apiVersion: 'v1', kind: 'ConfigMap' }), ALICE);
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      `ValidatingAdmissionPolicy.admissionregistration.k8s.io "cm" is invalid: spec.paramKind: Forbidden: user ${ALICE_INFO} must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`,
    );
    assert.deepEqual(refused.body.details.causes, [
      {
        reason: 'FieldValueForbidden',
        message: `Forbidden: user ${ALICE_INFO} must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`,
        field: 'spec.paramKind',
      },
    ]);
    // The admin (system:masters) is not checked; a malformed policy gets its field errors, not this check.
    assert.equal((await h.call('POST', POLICIES, policy('cm-admin', { apiVersion: 'v1', kind: 'ConfigMap' }))).status, 201);
    const malformed = await h.call(
      'POST',
      POLICIES,
      { ...policy('bad', { apiVersion: 'v1', kind: 'ConfigMap' }), spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } },
      ALICE,
    );
    assert.equal(malformed.status, 422);
    assert.doesNotMatch(malformed.body.message, /paramKind: Forbidden/);

    await grant('configmap-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    assert.equal((await h.call('POST', POLICIES, policy('cm', { apiVersion: 'v1', kind: 'ConfigMap' }), ALICE)).status, 201);
    // A kind that is not served is checked on its group and version with every resource.
    const widget = await h.call('POST', POLICIES, policy('widget', { apiVersion: 'example.com/v1', kind: 'Widget' }), ALICE);
    assert.equal(widget.status, 422);
    assert.match(widget.body.message, /must have "get" permission on all objects of the referenced paramKind \(kind=Widget, apiVersion=example.com\/v1\)$/);
    await grant('example-reader', [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['*'] }]);
    assert.equal((await h.call('POST', POLICIES, policy('widget', { apiVersion: 'example.com/v1', kind: 'Widget' }), ALICE)).status, 201);
    await revoke('example-reader');
    await revoke('configmap-reader');
  });

  it('an update is checked only when it changes the paramKind', async () => {
    const kept = await putFresh(`${POLICIES}/cm`, (spec) => ({ ...spec, validations: [{ expression: 'true', message: 'changed' }] }));
    assert.equal(kept.status, 200);
    const changed = await putFresh(`${POLICIES}/cm`, (spec) => ({ ...spec, paramKind: { apiVersion: 'v1', kind: 'Secret' } }));
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      `ValidatingAdmissionPolicy.admissionregistration.k8s.io "cm" is invalid: spec.paramKind: Forbidden: user ${ALICE_INFO} must have "get" permission on all objects of the referenced paramKind (kind=Secret, apiVersion=v1)`,
    );
    const patched = await h.call(
      'PATCH',
      `${POLICIES}/plain`,
      { spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } },
      { ...ALICE, 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 422);
    assert.match(patched.body.message, /spec\.paramKind: Forbidden: .*\(kind=ConfigMap, apiVersion=v1\)$/);
  });

  it("a binding's paramRef needs get on the named param (list for a selector), on the policy's paramKind or on everything", async () => {
    const named = { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' };
    const refused = await h.call('POST', BINDINGS, binding('b', 'cm', named), ALICE);
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.paramRef: Forbidden: user ${ALICE_INFO} does not have "get" permission on the object referenced by paramRef`,
    );
    assert.equal((await h.call('POST', BINDINGS, binding('no-params', 'cm'), ALICE)).status, 201);
    // get on that one ConfigMap in its namespace is enough.
    await grant('limits-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['limits'] }], 'default');
    assert.equal((await h.call('POST', BINDINGS, binding('b', 'cm', named), ALICE)).status, 201);
    const selector = await h.call('POST', BINDINGS, binding('s', 'cm', { namespace: 'default', selector: {}, parameterNotFoundAction: 'Allow' }), ALICE);
    assert.equal(selector.status, 422);
    assert.match(selector.body.message, /spec\.paramRef: Forbidden: user .* does not have "list" permission on the object referenced by paramRef$/);
    // A binding to a policy that does not exist (yet) is checked on every group and resource.
    const missing = await h.call('POST', BINDINGS, binding('m', 'absent', named), ALICE);
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /does not have "get" permission on the object referenced by paramRef$/);
    assert.equal((await h.call('POST', BINDINGS, binding('m', 'absent', named))).status, 201);
  });

  it('an update of a binding keeping a paramRef with parameterNotFoundAction is checked again, as the Go pointer comparison makes it', async () => {
    assert.equal((await h.call('DELETE', `${RBAC}/namespaces/default/rolebindings/limits-reader`)).status, 200);
    const stored = (await h.call('GET', `${BINDINGS}/b`)).body;
    const update = await h.call('PUT', `${BINDINGS}/b`, { ...stored, spec: { ...stored.spec, validationActions: ['Warn'] } }, ALICE);
    assert.equal(update.status, 422);
    assert.match(update.body.message, /spec\.paramRef: Forbidden: .* does not have "get" permission on the object referenced by paramRef$/);
    // Without a paramRef nothing is checked.
    const plain = (await h.call('GET', `${BINDINGS}/no-params`)).body;
    assert.equal((await h.call('PUT', `${BINDINGS}/no-params`, { ...plain, spec: { ...plain.spec, validationActions: ['Warn'] } }, ALICE)).status, 200);
  });
});
