import { fuzzCrd } from './cluster.ts';
import { Random } from './random.ts';
import type { KNOWN as Known } from './route-params.ts';
import { fuzzZip } from './zips.ts';

const BOUNDARY = 'fuzz_seed_1';

/** related is a multipart/related body: JSON metadata, then the media. */
function related(metadata: string, media: Buffer, mediaType: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${metadata}\r\n--${BOUNDARY}\r\nContent-Type: ${mediaType}\r\n\r\n`),
    media,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** SeedRequest is one request that builds the state the fuzz run starts from. */
export interface SeedRequest {
  readonly method: 'POST' | 'PUT';
  readonly url: string;
  readonly contentType: string;
  readonly body: string | Buffer;
}

const json = (method: 'POST' | 'PUT', url: string, body: unknown): SeedRequest => ({
  method,
  url,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

/** SEED_REQUESTS are the resources every family's routes find existing: templates, policies, roles, a binding, a namespace, an event, a message, a draft, a bundle and an APK. */
export function SEED_REQUESTS(known: typeof Known): SeedRequest[] {
  const project = `/compute/v1/projects/${known.project}`;
  const raw = Buffer.from('From: fuzz@example.com\r\nTo: someone@example.com\r\nSubject: seeded\r\n\r\nseeded\r\n').toString('base64url');
  return [
    ...['global', `regions/${known.region}`].flatMap((scope) => [
      json('POST', `${project}/${scope}/instanceTemplates`, { name: known.template, properties: { machineType: 'e2-small' } }),
      json('POST', `${project}/${scope}/securityPolicies`, { name: known.policy, description: 'seeded' }),
      json('POST', `${project}/${scope}/backendServices`, { name: known.backendService, loadBalancingScheme: 'EXTERNAL_MANAGED' }),
    ]),
    json('POST', `${project}/zones/${known.zone}/instances?sourceInstanceTemplate=global/instanceTemplates/${known.template}`, { name: known.instance }),
    json('POST', `${project}/zones/${known.zone}/instanceGroupManagers`, {
      name: known.instanceGroupManager,
      instanceTemplate: `global/instanceTemplates/${known.template}`,
      targetSize: 1,
    }),
    json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: known.clusterrole, labels: { fuzz: 'yes' } },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    }),
    json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: known.clusterrolebinding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: known.clusterrole },
      subjects: [{ kind: 'User', name: 'fuzz', apiGroup: 'rbac.authorization.k8s.io' }],
    }),
    json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: known.namespace } }),
    json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${known.namespace}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: known.role },
      rules: [{ apiGroups: [''], resources: ['events'], verbs: ['get', 'list'] }],
    }),
    json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${known.namespace}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: known.rolebinding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: known.role },
      subjects: [{ kind: 'ServiceAccount', name: 'fuzz' }],
    }),
    json('POST', `/apis/events.k8s.io/v1/namespaces/${known.namespace}/events`, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: known.event, namespace: known.namespace },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'fuzz/controller',
      reportingInstance: 'fuzz-1',
      action: 'Fuzz',
      reason: 'Seeded',
      type: 'Normal',
      note: 'seeded',
      regarding: { kind: 'Pod', name: 'fuzz-pod', namespace: known.namespace, apiVersion: 'v1' },
    }),
    // A CRD whose custom resource the cluster routes reach, one instance of it, and a second CRD that may be deleted.
    json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', fuzzCrd('widgets')),
    json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', fuzzCrd('gadgets')),
    json('POST', `/apis/fuzz.example.com/v1/namespaces/${known.namespace}/widgets`, {
      apiVersion: 'fuzz.example.com/v1',
      kind: 'Widget',
      metadata: { name: known.object },
      spec: { replicas: 1, color: 'blue', ports: [{ name: 'http', port: 80 }] },
    }),
    json('POST', `/api/v1/namespaces/${known.namespace}/pods`, {
      metadata: { name: known.object },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    }),
    json('POST', `/apis/apps/v1/namespaces/${known.namespace}/deployments`, {
      metadata: { name: known.object },
      spec: {
        selector: { matchLabels: { app: 'fuzz' } },
        template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    }),
    json('POST', `/api/v1/namespaces/${known.namespace}/configmaps`, { metadata: { name: known.object }, data: { a: 'b' } }),
    json('POST', '/gmail/v1/users/me/messages/send', { raw }),
    json('POST', '/gmail/v1/users/me/drafts', { message: { raw } }),
    // An upload of each kind: existing artifacts, and the inspection loaded before the run times answers.
    ...(['bundle', 'apk'] as const).map(
      (kind): SeedRequest => ({
        method: 'POST',
        url: `/upload/androidpublisher/v3/applications/internalappsharing/com.example.fuzz/artifacts/${kind}?uploadType=media`,
        contentType: 'application/octet-stream',
        body: fuzzZip(kind, 'deflated', new Random(1)),
      }),
    ),
    // The multipart and resumable paths too, so their parts are loaded before answers are timed.
    {
      method: 'POST',
      url: '/upload/androidpublisher/v3/applications/internalappsharing/com.example.fuzz/artifacts/bundle?uploadType=multipart',
      contentType: `multipart/related; boundary=${BOUNDARY}`,
      body: related('{}', fuzzZip('bundle', 'deflated', new Random(2)), 'application/octet-stream'),
    },
    {
      method: 'POST',
      url: '/upload/gmail/v1/users/me/messages/send?uploadType=multipart',
      contentType: `multipart/related; boundary=${BOUNDARY}`,
      body: related('{}', Buffer.from('From: fuzz@example.com\r\nTo: someone@example.com\r\nSubject: seeded\r\n\r\nseeded\r\n'), 'message/rfc822'),
    },
    json('POST', '/resumable/upload/gmail/v1/users/me/messages/send?uploadType=resumable', {}),
  ];
}
