import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ROLE_REF = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };

// A valid body per served kind, to put one bad list into at a time.
const KINDS: ReadonlyArray<{ readonly url: string; readonly doc: string; readonly schema: string; readonly body: () => Record<string, unknown> }> = [
  {
    url: `${RBAC}/clusterroles`,
    doc: 'apis/rbac.authorization.k8s.io/v1',
    schema: 'io.k8s.api.rbac.v1.ClusterRole',
    body: () => ({ metadata: { name: 'r' }, rules: [] }),
  },
  {
    url: `${RBAC}/clusterrolebindings`,
    doc: 'apis/rbac.authorization.k8s.io/v1',
    schema: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    body: () => ({ metadata: { name: 'b' }, roleRef: ROLE_REF }),
  },
  {
    url: '/apis/events.k8s.io/v1/namespaces/default/events',
    doc: 'apis/events.k8s.io/v1',
    schema: 'io.k8s.api.events.v1.Event',
    body: () => ({
      metadata: { name: 'e' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      type: 'Normal',
      regarding: { namespace: 'default' },
    }),
  },
  {
    url: '/api/v1/namespaces/default/events',
    doc: 'api/v1',
    schema: 'io.k8s.api.core.v1.Event',
    body: () => ({ metadata: { name: 'c' }, involvedObject: { namespace: 'default' } }),
  },
  { url: '/api/v1/namespaces', doc: 'api/v1', schema: 'io.k8s.api.core.v1.Namespace', body: () => ({ metadata: { name: 'n' } }) },
];

type OpenApiSchema = { $ref?: string; allOf?: OpenApiSchema[]; type?: string; properties?: Record<string, OpenApiSchema>; items?: OpenApiSchema };

// Every list field reachable from `root` (through objects, not through lists), as property paths.
function listPaths(schemas: Record<string, OpenApiSchema>, root: string): string[][] {
  const out: string[][] = [];
  const resolve = (schema: OpenApiSchema): OpenApiSchema => {
    const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
    return ref === undefined ? schema : resolve(schemas[ref.replace('#/components/schemas/', '')]!);
  };
  const walk = (schema: OpenApiSchema, path: string[], depth: number): void => {
    const s = resolve(schema);
    if (s.type === 'array') out.push(path);
    if (s.type !== 'object' || s.properties === undefined || depth > 4) return;
    for (const [key, property] of Object.entries(s.properties)) if (key !== 'managedFields') walk(property, [...path, key], depth + 1);
  };
  walk({ $ref: `#/components/schemas/${root}` }, [], 0);
  return out;
}

function withValue(body: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  let node = body;
  for (const key of path.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
  return body;
}

describe('list items that are null or of the wrong type are answered as the apiserver decodes them', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it('decodes a null rule to an empty PolicyRule, which validation answers field by field (422)', async () => {
    const answer = await h.call('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, null],
    });
    assert.equal(answer.status, 422);
    assert.equal(
      answer.body.message,
      'ClusterRole.rbac.authorization.k8s.io "r" is invalid: [rules[1].verbs: Required value: verbs must contain at least one value, rules[1].apiGroups: Required value: resource rules must supply at least one api group, rules[1].resources: Required value: resource rules must supply at least one resource]',
    );
    assert.deepEqual(answer.body.details.causes[0], {
      reason: 'FieldValueRequired',
      message: 'Required value: verbs must contain at least one value',
      field: 'rules[1].verbs',
    });
  });

  it('decodes a null subject to an empty Subject (422 Required name, Unsupported kind)', async () => {
    const answer = await h.call('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'b' }, roleRef: ROLE_REF, subjects: [null] });
    assert.equal(answer.status, 422);
    assert.equal(
      answer.body.message,
      'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: [subjects[0].name: Required value, subjects[0].kind: Unsupported value: "": supported values: "ServiceAccount", "User", "Group"]',
    );
  });

  it('creates an object whose managedFields hold null or empty entries, which own no field (no 500)', async () => {
    for (const [name, managedFields] of [
      ['mf-null', [null, null]],
      ['mf-empty', [{}]],
    ] as const) {
      const answer = await h.call('POST', '/api/v1/namespaces', { metadata: { name, managedFields } });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
    }
  });

  it("answers a list item of the wrong type with the decoder's 400, as the apiserver does", async () => {
    const subjects = await h.call('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'b' }, roleRef: ROLE_REF, subjects: [1] });
    assert.equal(subjects.status, 400);
    assert.equal(
      subjects.body.message,
      'ClusterRoleBinding in version "v1" cannot be handled as a ClusterRoleBinding: json: cannot unmarshal number into Go struct field ClusterRoleBinding.subjects of type v1.Subject',
    );
    const verbs = await h.call('POST', `${RBAC}/clusterroles`, { metadata: { name: 'r' }, rules: [{ verbs: [{}] }] });
    assert.equal(verbs.status, 400);
    assert.equal(
      verbs.body.message,
      'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal object into Go struct field PolicyRule.rules.verbs of type string',
    );
  });

  it('keeps a null aggregation selector as the empty selector Go decodes it to', async () => {
    const answer = await h.call('POST', `${RBAC}/clusterroles`, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [null] } });
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.body.aggregationRule, { clusterRoleSelectors: [{}] });
  });

  it('decodes null items the same way after a patch', async () => {
    await h.call('POST', `${RBAC}/clusterroles`, { metadata: { name: 'patched' }, rules: [] });
    const answer = await h.call('PATCH', `${RBAC}/clusterroles/patched`, [{ op: 'add', path: '/rules/-', value: null }], {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(answer.status, 422);
    assert.match(answer.body.message, /rules\[0\]\.verbs: Required value: verbs must contain at least one value/);
  });

  it('never answers 5xx for null, a number, an object or a nested list in any list field of any served kind', async () => {
    const checked: string[] = [];
    for (const kind of KINDS) {
      const index = await h.call('GET', '/openapi/v3');
      const doc = await h.call('GET', index.body.paths[kind.doc].serverRelativeURL);
      for (const path of listPaths(doc.body.components.schemas, kind.schema)) {
        for (const items of [[null], [1], [{}], [[]], [null, null]]) {
          const answer = await h.call('POST', `${kind.url}?dryRun=All`, withValue(kind.body(), path, items));
          assert.ok(answer.status < 500, `${kind.url} ${path.join('.')}=${JSON.stringify(items)}: ${answer.status} ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.kind, answer.status < 300 ? answer.body.kind : 'Status');
        }
        checked.push(`${kind.schema}:${path.join('.')}`);
      }
    }
    // The walk reached the lists named in the issue and the metadata ones.
    for (const field of [
      'io.k8s.api.rbac.v1.ClusterRole:rules',
      'io.k8s.api.rbac.v1.ClusterRoleBinding:subjects',
      'io.k8s.api.rbac.v1.ClusterRole:aggregationRule.clusterRoleSelectors',
      'io.k8s.api.core.v1.Namespace:metadata.finalizers',
      'io.k8s.api.core.v1.Namespace:spec.finalizers',
    ]) {
      assert.ok(checked.includes(field), field);
    }
  });
});
