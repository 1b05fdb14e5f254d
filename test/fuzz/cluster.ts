import type { RegisteredRoute } from '../../src/core/route-registry.ts';
import type { Random } from './random.ts';

/**
 * The cluster family registers catch-all routes (`/api/*`, `/apis/*`) and resolves resources
 * itself, so the fuzzer aims at concrete resource paths instead: every collection and object
 * the family serves, with plausible bodies for each kind, and the ways a list field or a patch
 * goes wrong.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Collection {
  /** The collection path; `:namespace` is filled like any path parameter. */
  readonly path: string;
  /** The path parameter naming one object of it. */
  readonly item: string;
  readonly kind:
    | 'ClusterRole'
    | 'ClusterRoleBinding'
    | 'Role'
    | 'RoleBinding'
    | 'Namespace'
    | 'Event'
    | 'CoreEvent'
    | 'Pod'
    | 'Deployment'
    | 'Service'
    | 'ConfigMap'
    | 'Secret'
    | 'Lease'
    | 'CustomResourceDefinition'
    | 'Widget'
    | 'ValidatingAdmissionPolicy'
    | 'ValidatingAdmissionPolicyBinding'
    | 'ValidatingWebhookConfiguration'
    | 'MutatingWebhookConfiguration';
  /** The object's subresources served (`status`): get, put and patch. */
  readonly subresources?: readonly string[];
}

const COLLECTIONS: readonly Collection[] = [
  { path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', item: ':clusterrole', kind: 'ClusterRole' },
  { path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', item: ':clusterrolebinding', kind: 'ClusterRoleBinding' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/:namespace/roles', item: ':role', kind: 'Role' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/:namespace/rolebindings', item: ':rolebinding', kind: 'RoleBinding' },
  { path: '/api/v1/namespaces', item: ':namespace', kind: 'Namespace' },
  { path: '/apis/events.k8s.io/v1/namespaces/:namespace/events', item: ':event', kind: 'Event' },
  { path: '/api/v1/namespaces/:namespace/events', item: ':event', kind: 'CoreEvent' },
  // Built-in kinds of the generic, schema-driven strategy (a sample covering its behaviour files).
  { path: '/api/v1/namespaces/:namespace/pods', item: ':object', kind: 'Pod', subresources: ['status'] },
  { path: '/apis/apps/v1/namespaces/:namespace/deployments', item: ':object', kind: 'Deployment', subresources: ['scale', 'status'] },
  { path: '/api/v1/namespaces/:namespace/services', item: ':object', kind: 'Service', subresources: ['status'] },
  { path: '/api/v1/namespaces/:namespace/configmaps', item: ':object', kind: 'ConfigMap' },
  { path: '/api/v1/namespaces/:namespace/secrets', item: ':object', kind: 'Secret' },
  { path: '/apis/coordination.k8s.io/v1/namespaces/:namespace/leases', item: ':object', kind: 'Lease' },
  // CustomResourceDefinitions, and the custom resource of the one the seed installs (seed-state.ts).
  { path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', item: ':crd', kind: 'CustomResourceDefinition', subresources: ['status'] },
  { path: '/apis/fuzz.example.com/v1/namespaces/:namespace/widgets', item: ':object', kind: 'Widget', subresources: ['scale', 'status'] },
  // Admission configuration (issue 37): stored, and enforced on the writes they match.
  ...(
    [
      ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy', ['status']],
      ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', []],
      ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', []],
      ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', []],
    ] as const
  ).map(([resource, kind, subresources]) => ({ path: `/apis/admissionregistration.k8s.io/v1/${resource}`, item: ':object', kind, subresources })),
];

/**
 * ADMISSION_GATE is the label the fuzzer's admission configurations select objects by: no fuzzed
 * body carries it, so a policy or webhook the fuzzer stores (with whatever values) is compiled,
 * matched and skipped on every write, without refusing the other lanes' requests.
 */
const ADMISSION_GATE = { matchLabels: { 'fuzz-admission': 'on' } };

/** FUZZ_CRD is the CRD the seed installs, whose custom resource the fuzzer aims at: status and scale subresources, a list-map, printer columns, a deprecated second version. */
export function fuzzCrd(plural: string): Json {
  const schema: Json = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', minimum: 0, default: 1 },
          color: { type: 'string', enum: ['red', 'blue'] },
          ports: {
            type: 'array',
            maxItems: 8,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 16 }, port: { type: 'integer' } } },
          },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  };
  const version = (name: string, storage: boolean): Json => ({
    name,
    served: true,
    storage,
    deprecated: !storage,
    schema: { openAPIV3Schema: schema },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    additionalPrinterColumns: [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }],
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.fuzz.example.com` },
    spec: {
      group: 'fuzz.example.com',
      scope: 'Namespaced',
      names: { plural, kind: plural === 'widgets' ? 'Widget' : `K${plural.replace(/[^a-z0-9]/g, '')}`, shortNames: [`${plural}-s`], categories: ['all'] },
      versions: [version('v1', true), version('v1beta1', false)],
    },
  };
}

/** REVIEWS are the create-only review resources every authenticated user may POST (with YAML too). */
const REVIEWS: readonly string[] = [
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
  '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
  '/apis/authentication.k8s.io/v1/selfsubjectreviews',
  '/apis/authorization.k8s.io/v1/subjectaccessreviews',
  '/apis/authorization.k8s.io/v1/namespaces/:namespace/localsubjectaccessreviews',
];

/** clusterRoutes are the concrete routes the fuzzer sends cluster requests to, in place of the family's catch-alls. */
export function clusterRoutes(): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const add = (method: string, url: string): void => void routes.push({ method, url, family: 'cluster' });
  for (const { path, item, subresources } of COLLECTIONS) {
    for (const method of ['GET', 'POST', 'DELETE']) add(method, path);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) add(method, `${path}/${item}`);
    for (const subresource of subresources ?? []) for (const method of ['GET', 'PUT', 'PATCH']) add(method, `${path}/${item}/${subresource}`);
  }
  for (const path of REVIEWS) add('POST', path);
  // Cluster-wide lists, and the deprecated watch paths (issue 24 item 9).
  for (const path of [
    '/apis/events.k8s.io/v1/events',
    '/api/v1/events',
    '/api/v1/watch/namespaces',
    '/apis/rbac.authorization.k8s.io/v1/watch/clusterroles',
    '/api/v1/watch/namespaces/:namespace/events',
    '/apis/fuzz.example.com/v1/widgets',
    '/apis/fuzz.example.com/v1beta1/namespaces/:namespace/widgets/:object',
  ])
    add('GET', path);
  for (const path of [
    '/api',
    '/apis',
    '/version',
    '/openapi/v3',
    '/apis/rbac.authorization.k8s.io/v1',
    '/openapi/v3/apis/rbac.authorization.k8s.io/v1',
    '/apis/fuzz.example.com/v1',
    '/openapi/v3/apis/fuzz.example.com/v1',
  ])
    add('GET', path);
  return routes;
}

/** isClusterPath is true for a route pattern of the cluster family (as clusterRoutes lists them). */
export function isClusterPath(url: string): boolean {
  return url === '/api' || url === '/apis' || url.startsWith('/api/') || url.startsWith('/apis/') || url === '/version' || url.startsWith('/openapi');
}

function collectionOf(url: string): Collection | undefined {
  return COLLECTIONS.find(
    (collection) =>
      url === collection.path ||
      url === `${collection.path}/${collection.item}` ||
      (collection.subresources ?? []).some((subresource) => url === `${collection.path}/${collection.item}/${subresource}`),
  );
}

/** clusterBody is a plausible object for the route (a review for review routes), or undefined where no body goes. */
export function clusterBody(method: string, url: string, random: Random): Json | undefined {
  if (method === 'GET' || method === 'DELETE')
    return method === 'DELETE' && random.chance(0.3) ? { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } : undefined;
  if (url.endsWith('/selfsubjectaccessreviews'))
    return {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'get', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' } },
    };
  if (url.endsWith('/selfsubjectrulesreviews'))
    return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } };
  if (url.endsWith('/selfsubjectreviews')) return { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  if (url.endsWith('subjectaccessreviews'))
    return {
      apiVersion: 'authorization.k8s.io/v1',
      kind: url.endsWith('/localsubjectaccessreviews') ? 'LocalSubjectAccessReview' : 'SubjectAccessReview',
      spec: { user: 'fuzz', groups: ['devs'], resourceAttributes: { namespace: 'fuzz-ns', verb: 'list', resource: 'events' } },
    };
  const collection = collectionOf(url);
  if (collection === undefined) return undefined;
  const name =
    method === 'POST'
      ? `fz-${random.text(8, 'abcdefghijklmnopqrstuvwxyz0123456789')}`
      : random.pick(['fuzz-role', 'fuzz-binding', 'fuzz-ns', 'fuzz-event', 'fuzz-object']);
  if (collection.kind === 'CustomResourceDefinition') return fuzzCrd(method === 'POST' ? name : random.pick(['gadgets', 'widgets']));
  return objectOf(collection.kind, name);
}

function objectOf(kind: Collection['kind'], name: string): Json {
  switch (kind) {
    case 'ClusterRole':
      return {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name, labels: { fuzz: 'yes' }, finalizers: [] },
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
          { nonResourceURLs: ['/healthz'], verbs: ['get'] },
        ],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { fuzz: 'agg' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }] },
      };
    case 'ClusterRoleBinding':
      return {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'fuzz', apiGroup: 'rbac.authorization.k8s.io' }],
      };
    case 'Role':
      return {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name, namespace: 'fuzz-ns' },
        rules: [{ apiGroups: [''], resources: ['events'], verbs: ['get'], resourceNames: ['a'] }],
      };
    case 'RoleBinding':
      return {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name, namespace: 'fuzz-ns' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'fuzz-role' },
        subjects: [{ kind: 'ServiceAccount', name: 'fuzz' }],
      };
    case 'Namespace':
      return { apiVersion: 'v1', kind, metadata: { name, ownerReferences: [] }, spec: { finalizers: ['kubernetes'] } };
    case 'Event':
      return {
        apiVersion: 'events.k8s.io/v1',
        kind,
        metadata: { name, namespace: 'fuzz-ns' },
        eventTime: '2026-01-01T00:00:00.000000Z',
        reportingController: 'fuzz/controller',
        reportingInstance: 'fuzz-1',
        action: 'Fuzz',
        reason: 'Fuzzed',
        type: 'Normal',
        note: 'fuzz',
        regarding: { kind: 'Pod', name: 'fuzz-pod', namespace: 'fuzz-ns', apiVersion: 'v1' },
      };
    case 'Pod':
      return {
        apiVersion: 'v1',
        kind,
        metadata: { name, labels: { app: 'fuzz' } },
        spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] },
      };
    case 'Deployment':
      return {
        apiVersion: 'apps/v1',
        kind,
        metadata: { name },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'fuzz' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] },
          template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'A', value: 'b' }] }] } },
        },
        status: { replicas: 1, conditions: [{ type: 'Available', status: 'True' }] },
      };
    case 'Service':
      return {
        apiVersion: 'v1',
        kind,
        metadata: { name },
        spec: { type: 'NodePort', selector: { app: 'fuzz' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      };
    case 'ConfigMap':
      return { apiVersion: 'v1', kind, metadata: { name }, data: { key: 'value' }, binaryData: { bin: 'AAE=' } };
    case 'Secret':
      return { apiVersion: 'v1', kind, metadata: { name }, type: 'Opaque', data: { a: 'Yg==' }, stringData: { c: 'd' } };
    case 'Lease':
      return {
        apiVersion: 'coordination.k8s.io/v1',
        kind,
        metadata: { name },
        spec: { holderIdentity: 'fuzz', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' },
      };
    case 'CustomResourceDefinition':
      return fuzzCrd(name);
    case 'ValidatingAdmissionPolicy':
      return {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name },
        spec: {
          failurePolicy: 'Fail',
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: {
            objectSelector: ADMISSION_GATE,
            resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*'], scope: '*' }],
          },
          matchConditions: [{ name: 'always', expression: 'true' }],
          variables: [{ name: 'n', expression: 'object.metadata.name' }],
          validations: [{ expression: "variables.n != ''", messageExpression: "'named ' + variables.n", reason: 'Forbidden' }],
          auditAnnotations: [{ key: 'name', valueExpression: 'string(variables.n)' }],
        },
      };
    case 'ValidatingAdmissionPolicyBinding':
      return {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name },
        spec: {
          policyName: 'fuzz-object',
          paramRef: { selector: { matchLabels: { fuzz: 'yes' } }, namespace: 'fuzz-ns', parameterNotFoundAction: 'Allow' },
          matchResources: { objectSelector: ADMISSION_GATE },
          validationActions: ['Warn', 'Audit'],
        },
      };
    case 'ValidatingWebhookConfiguration':
    case 'MutatingWebhookConfiguration':
      return {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name },
        webhooks: [
          {
            name: 'fuzz.example.com',
            // Port 1 refuses at once; the gate keeps it from being called for the other lanes anyway.
            clientConfig: { url: 'https://127.0.0.1:1/never', caBundle: Buffer.from('not a certificate').toString('base64') },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' }],
            objectSelector: ADMISSION_GATE,
            namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['fuzz-ns'] }] },
            matchConditions: [{ name: 'always', expression: 'true' }],
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            timeoutSeconds: 1,
            admissionReviewVersions: ['v1'],
            ...(kind === 'MutatingWebhookConfiguration' ? { reinvocationPolicy: 'IfNeeded' } : {}),
          },
        ],
      };
    case 'Widget':
      return {
        apiVersion: 'fuzz.example.com/v1',
        kind,
        metadata: { name, labels: { app: 'fuzz' } },
        spec: { replicas: 2, color: 'red', ports: [{ name: 'http', port: 80 }], free: { any: ['thing'] } },
        status: { replicas: 1 },
      };
    case 'CoreEvent':
      return {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: 'fuzz-ns' },
        involvedObject: { kind: 'Pod', name: 'fuzz-pod', namespace: 'fuzz-ns' },
        reason: 'Fuzzed',
        message: 'fuzz',
        type: 'Normal',
        source: { component: 'fuzz' },
      };
  }
}

/** LIST_VALUES are what a list field gets instead of its list: null items, the wrong item types, or null itself. */
const LIST_VALUES: readonly Json[] = [[null], null, [1], ['x'], [[]], [{}], [null, null], [true]];

/**
 * withBadList replaces one list field of `body` (any list in it, or one of metadata's lists it
 * lacks: finalizers, ownerReferences, managedFields) with null items, wrong item types or null.
 */
export function withBadList(body: Json, random: Random): string {
  const paths: (string | number)[][] = [];
  const walk = (value: Json, path: (string | number)[]): void => {
    if (Array.isArray(value)) {
      paths.push(path);
      for (const [index, item] of value.entries()) walk(item, [...path, index]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) walk(member, [...path, key]);
    }
  };
  walk(body, []);
  for (const list of ['finalizers', 'ownerReferences', 'managedFields']) paths.push(['metadata', list]);
  const path = random.pick(paths);
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  let at = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) {
    if (at[step] === undefined || at[step] === null || typeof at[step] !== 'object') at[step] = {};
    at = at[step] as Record<string | number, Json>;
  }
  // Written as text: a literal `__proto__` member would set a prototype instead of a key.
  at[path.at(-1)!] = '__list__';
  return JSON.stringify(copy).replace('"__list__"', JSON.stringify(random.pick(LIST_VALUES)).replace('{}', random.chance(0.2) ? '{"__proto__":1}' : '{}'));
}

/** PATCH_TYPES are the content types of the cluster's four patch kinds. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

const PROTO_NAMES = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * prototypePatch is a patch of `type` whose keys or pointers name `__proto__`, `constructor` or
 * `prototype` somewhere (the top, metadata.labels, a list item, a nested pointer), or that moves
 * a parent into its own child; it returns the body and the query the patch type needs.
 */
export function prototypePatch(type: (typeof PATCH_TYPES)[number], url: string, random: Random): { body: string; query: string } {
  const key = random.pick(PROTO_NAMES);
  const k = JSON.stringify(key);
  if (type === 'application/json-patch+json') {
    const op = random.pick([
      `{"op":"add","path":"/metadata/labels/${key}","value":"x"}`,
      `{"op":"add","path":"/${key}/polluted","value":true}`,
      `{"op":"add","path":"/${key}","value":{"polluted":true}}`,
      `{"op":"replace","path":"/${key}/prototype/polluted","value":1}`,
      `{"op":"remove","path":"/${key}"}`,
      `{"op":"test","path":"/${key}","value":{}}`,
      `{"op":"copy","from":"/metadata","path":"/${key}"}`,
      `{"op":"copy","from":"/${key}","path":"/metadata/labels/x"}`,
      `{"op":"move","from":"/metadata","path":"/metadata/labels"}`,
      `{"op":"move","from":"/metadata","path":"/metadata/labels/${key}"}`,
      `{"op":"move","from":"/${key}","path":"/x"}`,
      `{"op":"add","path":"/rules/0/${key}","value":[]}`,
      `{"op":"add","path":"/rules/${key}","value":{}}`,
      `{"op":"add","path":"/metadata/annotations","value":{${k}:"x"}}`,
    ]);
    return { body: `[${op}]`, query: '' };
  }
  const member = random.pick([
    `{${k}:{"polluted":true}}`,
    `{"metadata":{"labels":{${k}:"x"}}}`,
    `{"metadata":{${k}:{"name":"x"}}}`,
    `{"constructor":{"prototype":{"polluted":true}}}`,
    `{"rules":[{${k}:{"x":1},"verbs":["get"]}]}`,
    `{"metadata":{"annotations":{${k}:"x","toString":"y"}}}`,
  ]);
  if (type === 'application/merge-patch+json') return { body: member, query: '' };
  if (type === 'application/strategic-merge-patch+json') {
    const directive = random.pick([
      member,
      `{"$patch":"replace",${k}:{}}`,
      `{"metadata":{"$retainKeys":[${k}]}}`,
      `{"$setElementOrder/rules":[{${k}:1}]}`,
      `{"$deleteFromPrimitiveList/${key}":["x"]}`,
      `{"metadata":{"$deleteFromPrimitiveList/finalizers":[${k}]}}`,
      `{"rules":[{"$patch":"delete",${k}:1}]}`,
    ]);
    return { body: directive, query: '' };
  }
  // apply: the whole object as the manager wants it, as YAML (or JSON, which is YAML too).
  const { apiVersion, kind } = applyKind(url);
  const yaml = random.chance(0.7)
    ? `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: fuzz-role\n  labels:\n    ${key}: x\n${random.pick([`${key}:\n  polluted: true\n`, `constructor:\n  prototype:\n    polluted: true\n`, `rules:\n- ${key}: {}\n  verbs: [get]\n`, `metadata2:\n  ${key}: 1\n`])}`
    : `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"fuzz-role"},${k}:{"polluted":true}}`;
  return { body: yaml, query: `fieldManager=fuzz${random.chance(0.5) ? `&force=${random.pick(['true', 'True', '1', 'false'])}` : ''}` };
}

function applyKind(url: string): { apiVersion: string; kind: string } {
  switch (collectionOf(url)?.kind) {
    case 'ClusterRoleBinding':
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' };
    case 'Role':
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' };
    case 'RoleBinding':
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' };
    case 'Namespace':
      return { apiVersion: 'v1', kind: 'Namespace' };
    case 'Event':
      return { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
    case 'CustomResourceDefinition':
      return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    case 'Widget':
      return { apiVersion: 'fuzz.example.com/v1', kind: 'Widget' };
    case 'CoreEvent':
      return { apiVersion: 'v1', kind: 'Event' };
    default:
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };
  }
}
