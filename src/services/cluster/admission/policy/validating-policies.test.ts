import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../../testing/cluster-harness.ts';
import { ADMISSION_STORE_KINDS } from '../stored-configurations.ts';

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function deployment(name: string, labels: Record<string, string> = {}, replicas = 1): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

const DEPLOYMENT_RULES = {
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }],
};

async function policy(h: ClusterHarness, name: string, spec: Record<string, unknown>): Promise<void> {
  const created = await h.call('POST', POLICIES, { metadata: { name }, spec: { matchConstraints: DEPLOYMENT_RULES, ...spec } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

async function binding(h: ClusterHarness, name: string, spec: Record<string, unknown>): Promise<void> {
  const created = await h.call('POST', BINDINGS, { metadata: { name }, spec });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

async function remove(h: ClusterHarness, ...urls: string[]): Promise<void> {
  for (const url of urls) await h.call('DELETE', url);
}

describe('ValidatingAdmissionPolicy', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('refuses a create a validation rejects, with the apiserver text, code and cause, and admits one it accepts', async () => {
    await policy(h, 'require-team', { validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels" }] });
    await binding(h, 'require-team-binding', { policyName: 'require-team', validationActions: ['Deny'] });
    const refused = await h.call('POST', DEPLOYMENTS, deployment('web'));
    assert.equal(refused.status, 422);
    const message =
      "ValidatingAdmissionPolicy 'require-team' with binding 'require-team-binding' denied request: failed expression: has(object.metadata.labels) && 'team' in object.metadata.labels";
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `deployments.apps "web" is forbidden: ${message}`,
      reason: 'Invalid',
      details: { name: 'web', group: 'apps', kind: 'deployments', causes: [{ message }] },
      code: 422,
    });
    assert.equal((await h.call('GET', `${DEPLOYMENTS}/web`)).status, 404);
    const admitted = await h.call('POST', DEPLOYMENTS, deployment('web', { team: 'a' }));
    assert.equal(admitted.status, 201);
    // Updates are checked too: dropping the label is refused, whatever the patch type.
    const patched = await h.call('PATCH', `${DEPLOYMENTS}/web`, [{ op: 'remove', path: '/metadata/labels/team' }], {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(patched.status, 422);
    const applied = await h.call(
      'PATCH',
      `${DEPLOYMENTS}/web?fieldManager=t`,
      { metadata: { labels: { team: null } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(applied.status, 422);
    // Server-side apply that creates is a CREATE, refused the same way; strategic merge patch too.
    const appliedNew = await h.call('PATCH', `${DEPLOYMENTS}/applied?fieldManager=ssa`, JSON.stringify(deployment('applied')), {
      'content-type': 'application/apply-patch+yaml',
    });
    assert.equal(appliedNew.status, 422, JSON.stringify(appliedNew.body));
    const strategic = await h.call(
      'PATCH',
      `${DEPLOYMENTS}/web`,
      { metadata: { labels: { team: null } } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(strategic.status, 422);
    // Dry-run requests are admitted as well (and refused the same way).
    const dry = await h.call('POST', `${DEPLOYMENTS}?dryRun=All`, deployment('dry'));
    assert.equal(dry.status, 422);
    await remove(h, `${BINDINGS}/require-team-binding`, `${POLICIES}/require-team`, `${DEPLOYMENTS}/web`);
  });

  it('uses message, messageExpression and reason; and Warn becomes a Warning header', async () => {
    await policy(h, 'replicas', {
      validations: [
        {
          expression: 'object.spec.replicas <= 3',
          messageExpression: "'replicas must be at most 3, not ' + string(object.spec.replicas)",
          reason: 'Forbidden',
        },
        { expression: "object.metadata.name != 'bad'", message: 'the name bad is taken' },
      ],
    });
    await binding(h, 'replicas-deny', { policyName: 'replicas', validationActions: ['Deny'] });
    const refused = await h.call('POST', DEPLOYMENTS, deployment('big', {}, 5));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.reason, 'Forbidden');
    assert.match(refused.body.message, /denied request: replicas must be at most 3, not 5$/);
    const named = await h.call('POST', DEPLOYMENTS, deployment('bad'));
    assert.equal(named.status, 422);
    assert.match(named.body.message, /denied request: the name bad is taken$/);
    await remove(h, `${BINDINGS}/replicas-deny`);
    await binding(h, 'replicas-warn', { policyName: 'replicas', validationActions: ['Warn', 'Audit'] });
    const warned = await h.call('POST', DEPLOYMENTS, deployment('big', {}, 5));
    assert.equal(warned.status, 201);
    assert.deepEqual([warned.headers.warning].flat(), [
      "299 - \"Validation failed for ValidatingAdmissionPolicy 'replicas' with binding 'replicas-warn': replicas must be at most 3, not 5\"",
    ]);
    await remove(h, `${BINDINGS}/replicas-warn`, `${POLICIES}/replicas`, `${DEPLOYMENTS}/big`);
  });

  it('evaluates once per param (ConfigMap by name or selector) and follows parameterNotFoundAction', async () => {
    await policy(h, 'max-replicas', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }],
    });
    await binding(h, 'max-by-name', {
      policyName: 'max-replicas',
      paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny'],
    });
    const missing = await h.call('POST', DEPLOYMENTS, deployment('p1'));
    assert.equal(missing.status, 422);
    assert.match(
      missing.body.message,
      /ValidatingAdmissionPolicy 'max-replicas' with binding 'max-by-name' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/,
    );
    assert.equal((await h.call('POST', CONFIGMAPS, { metadata: { name: 'limits', labels: { limits: 'yes' } }, data: { max: '2' } })).status, 201);
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('p1', {}, 3))).body.message.endsWith('denied request: at most 2'), true);
    assert.equal((await h.call('PUT', `${CONFIGMAPS}/limits`, { metadata: { name: 'limits', labels: { limits: 'yes' } }, data: { max: '5' } })).status, 200);
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('p1', {}, 3))).status, 201);
    await remove(h, `${BINDINGS}/max-by-name`);
    await binding(h, 'max-by-selector', {
      policyName: 'max-replicas',
      paramRef: { selector: { matchLabels: { limits: 'yes' } }, parameterNotFoundAction: 'Allow' },
      validationActions: ['Deny'],
    });
    assert.equal((await h.call('POST', CONFIGMAPS, { metadata: { name: 'tight', labels: { limits: 'yes' } }, data: { max: '1' } })).status, 201);
    // Every selected param must admit: the tight one refuses.
    assert.match((await h.call('POST', DEPLOYMENTS, deployment('p2', {}, 2))).body.message, /denied request: at most 1$/);
    await remove(h, `${CONFIGMAPS}/tight`, `${CONFIGMAPS}/limits`);
    // No params under Allow: admitted.
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('p2', {}, 9))).status, 201);
    await remove(h, `${BINDINGS}/max-by-selector`, `${POLICIES}/max-replicas`, `${DEPLOYMENTS}/p1`, `${DEPLOYMENTS}/p2`);
  });

  it('reports runtime errors per failurePolicy, honours matchConditions and variables, and never matches the policy kinds', async () => {
    await policy(h, 'errors', {
      failurePolicy: 'Fail',
      matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }],
      variables: [{ name: 'size', expression: 'object.spec.replicas * 2' }],
      validations: [{ expression: "object.nonExistentProperty == 'someval'" }, { expression: 'variables.size < 10' }],
    });
    await binding(h, 'errors-binding', { policyName: 'errors', validationActions: ['Deny'] });
    const failed = await h.call('POST', DEPLOYMENTS, deployment('e1', { a: 'b' }));
    assert.equal(failed.status, 422);
    assert.match(
      failed.body.message,
      /denied request: expression 'object.nonExistentProperty == 'someval'' resulted in error: no such key: nonExistentProperty$/,
    );
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('e1', { exempt: 'yes' }))).status, 201);
    const spec = (await h.call('GET', `${POLICIES}/errors`)).body;
    spec.spec.failurePolicy = 'Ignore';
    assert.equal((await h.call('PUT', `${POLICIES}/errors`, spec)).status, 200);
    // Under Ignore the error admits; the variable-driven rule still refuses.
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('e2', { a: 'b' }, 2))).status, 201);
    assert.match((await h.call('POST', DEPLOYMENTS, deployment('e3', { a: 'b' }, 6))).body.message, /failed expression: variables.size < 10$/);
    // A deny-everything policy cannot lock its own kinds.
    await h.call('POST', POLICIES, {
      metadata: { name: 'deny-all' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] },
        validations: [{ expression: 'false' }],
      },
    });
    await binding(h, 'deny-all-binding', { policyName: 'deny-all', validationActions: ['Deny'] });
    assert.equal((await h.call('POST', CONFIGMAPS, { metadata: { name: 'x' } })).status, 422);
    assert.equal((await h.call('DELETE', `${BINDINGS}/deny-all-binding`)).status, 200);
    assert.equal((await h.call('POST', CONFIGMAPS, { metadata: { name: 'x' } })).status, 201);
    await remove(h, `${BINDINGS}/errors-binding`, `${POLICIES}/errors`, `${POLICIES}/deny-all`);
  });

  it('checks DELETE with a null object and the stored one as oldObject, and answers checks through RBAC', async () => {
    await h.call('POST', POLICIES, {
      metadata: { name: 'keep-protected' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] },
        validations: [
          { expression: "object == null && !(has(oldObject.metadata.labels) && 'protected' in oldObject.metadata.labels)", message: 'protected' },
          { expression: "authorizer.group('').resource('configmaps').namespace('default').check('delete').allowed()" },
        ],
      },
    });
    await binding(h, 'keep-protected-binding', { policyName: 'keep-protected', validationActions: ['Deny'] });
    await h.call('POST', CONFIGMAPS, { metadata: { name: 'p', labels: { protected: 'y' } } });
    const refused = await h.call('DELETE', `${CONFIGMAPS}/p`);
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      "configmaps \"p\" is forbidden: ValidatingAdmissionPolicy 'keep-protected' with binding 'keep-protected-binding' denied request: protected",
    );
    assert.equal((await h.call('DELETE', `${CONFIGMAPS}/x`)).status, 200);
    await remove(h, `${BINDINGS}/keep-protected-binding`, `${POLICIES}/keep-protected`, `${CONFIGMAPS}/p`);
  });

  it('gives a namespaced request its Namespace as namespaceObject (and a cluster-scoped one null)', async () => {
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'prod', labels: { env: 'prod' } } });
    await policy(h, 'prod-replicas', {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] },
        ],
      },
      validations: [
        {
          expression:
            "namespaceObject == null || !('env' in namespaceObject.metadata.labels) || namespaceObject.metadata.labels.env != 'prod' || object.spec.replicas >= 2",
          message: 'in prod, at least 2 replicas',
        },
        { expression: "request.kind.kind != 'Namespace' || namespaceObject == null", message: 'a Namespace has no namespaceObject' },
      ],
    });
    await binding(h, 'prod-replicas-binding', { policyName: 'prod-replicas', validationActions: ['Deny'] });
    const refused = await h.call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('one', {}, 1));
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      "deployments.apps \"one\" is forbidden: ValidatingAdmissionPolicy 'prod-replicas' with binding 'prod-replicas-binding' denied request: in prod, at least 2 replicas",
    );
    assert.equal((await h.call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('two', {}, 2))).status, 201);
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('one', {}, 1))).status, 201);
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'staging' } })).status, 201);
    await remove(h, `${BINDINGS}/prod-replicas-binding`, `${POLICIES}/prod-replicas`, `${DEPLOYMENTS}/one`);
  });

  it('refuses a policy that does not compile; one stored before (unvalidated) gets type-checking warnings and refuses or admits per failurePolicy', async () => {
    const compileError = "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^";
    const invalid = await h.call('POST', POLICIES, {
      metadata: { name: 'broken' },
      spec: { matchConstraints: DEPLOYMENT_RULES, validations: [{ expression: 'params.max > 1' }] },
    });
    assert.equal(invalid.status, 422);
    assert.equal(
      invalid.body.message,
      `ValidatingAdmissionPolicy.admissionregistration.k8s.io "broken" is invalid: spec.validations[0].expression: Invalid value: "params.max > 1": compilation failed: ${compileError}`,
    );
    // The same policy as a store written by an older server holds it.
    await policy(h, 'broken', { validations: [{ expression: 'true' }] });
    const kind = ADMISSION_STORE_KINDS.policies;
    const record = (await h.store.list<{ metadata: { name: string; generation: number }; spec: Record<string, unknown> }>(kind)).find(
      (item) => item.value.metadata.name === 'broken',
    );
    assert.ok(record !== undefined);
    const legacy = structuredClone(record.value);
    legacy.spec['validations'] = [{ expression: 'params.max > 1' }];
    legacy.metadata.generation = 2;
    await h.store.transact((tx) => tx.put(kind, record.key, legacy));
    await binding(h, 'broken-binding', { policyName: 'broken', validationActions: ['Deny'] });
    let status: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && status?.['observedGeneration'] !== 2; i++) {
      status = (await h.call('GET', `${POLICIES}/broken`)).body.status;
      if (status?.['observedGeneration'] !== 2) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(status, {
      observedGeneration: 2,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: `apps/v1, Kind=Deployment: ${compileError}\n` }] },
    });
    const refused = await h.call('POST', DEPLOYMENTS, deployment('c1'));
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      `deployments.apps "c1" is forbidden: ValidatingAdmissionPolicy 'broken' with binding 'broken-binding' denied request: expression 'params.max > 1' resulted in error: compilation error: compilation failed: ${compileError}`,
    );
    // An update keeping the expression is refused as well (upstream compiles it in its stored-expressions environment, where `params` is as undeclared).
    const ignoring = (await h.call('GET', `${POLICIES}/broken`)).body;
    ignoring.spec.failurePolicy = 'Ignore';
    assert.equal((await h.call('PUT', `${POLICIES}/broken`, ignoring)).status, 422);
    const stored = (await h.store.get<typeof legacy>(kind, record.key))!;
    await h.store.transact((tx) => tx.put(kind, record.key, { ...stored.value, spec: { ...stored.value.spec, failurePolicy: 'Ignore' } }));
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('c1'))).status, 201);
    await remove(h, `${BINDINGS}/broken-binding`, `${POLICIES}/broken`, `${DEPLOYMENTS}/c1`);
  });

  it('admits subresource writes as the subresource: a scale update is UPDATE of deployments/scale with an autoscaling/v1 Scale', async () => {
    await h.call('POST', POLICIES, {
      metadata: { name: 'scale-limit' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments/scale'] }] },
        validations: [
          { expression: "request.kind.kind == 'Scale' && request.subResource == 'scale' && object.spec.replicas <= 4", message: 'scale at most 4' },
        ],
      },
    });
    await binding(h, 'scale-limit-binding', { policyName: 'scale-limit', validationActions: ['Deny'] });
    assert.equal((await h.call('POST', DEPLOYMENTS, deployment('s1'))).status, 201);
    const scale = (await h.call('GET', `${DEPLOYMENTS}/s1/scale`)).body;
    const refused = await h.call('PUT', `${DEPLOYMENTS}/s1/scale`, { ...scale, spec: { replicas: 9 } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.message, /^deployments\.apps "s1" is forbidden: .* denied request: scale at most 4$/);
    const patched = await h.call('PATCH', `${DEPLOYMENTS}/s1/scale`, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    // The main resource is not its subresource: a replicas change through the Deployment itself is not matched.
    const whole = (await h.call('GET', `${DEPLOYMENTS}/s1`)).body;
    assert.equal((await h.call('PUT', `${DEPLOYMENTS}/s1`, { ...whole, spec: { ...whole.spec, replicas: 9 } })).status, 200);
    await remove(h, `${BINDINGS}/scale-limit-binding`, `${POLICIES}/scale-limit`, `${DEPLOYMENTS}/s1`);
  });
});
