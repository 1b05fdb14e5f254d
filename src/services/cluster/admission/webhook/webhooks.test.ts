import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../../testing/cluster-harness.ts';
import { ADMISSION_STORE_KINDS } from '../stored-configurations.ts';
import { jsonPatch, startWebhookServer, type WebhookServer } from '../../../../testing/webhook-server.ts';

const MUTATING = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const CONFIGMAP_RULES = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE', 'DELETE'], resources: ['configmaps'] }];

function webhook(name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, clientConfig, rules: CONFIGMAP_RULES, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra };
}

describe('admission webhooks', () => {
  let h: ClusterHarness;
  let server: WebhookServer;
  before(async () => {
    h = await startHarness();
    server = await startWebhookServer(['hooks.default.svc']);
  });
  after(async () => {
    await server.close();
    await h.close();
  });
  const configure = async (url: string, name: string, hooks: Record<string, unknown>[]): Promise<void> => {
    const created = await h.call('POST', url, { metadata: { name }, webhooks: hooks });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };

  it("applies a mutating webhook's JSONPatch before validation and stores it; a validating webhook refuses with its status", async () => {
    server.handle('/mutate', () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { defaulted: 'yes' } }]) }));
    server.handle('/validate', (request) =>
      request.object?.data?.forbidden === undefined
        ? { allowed: true, warnings: ['checked by the test'] }
        : { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'forbidden is forbidden' } },
    );
    await configure(MUTATING, 'defaulter', [webhook('default.example.com', { url: `${server.base}//mutate`, caBundle: server.leafBundle })]);
    await configure(VALIDATING, 'validator', [webhook('validate.example.com', { url: `${server.base}/validate`, caBundle: server.caBundle })]);
    const created = await h.call('POST', CONFIGMAPS, { metadata: { name: 'one' }, data: { a: 'b' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.metadata.labels, { defaulted: 'yes' });
    assert.deepEqual([created.headers.warning].flat(), ['299 - "checked by the test"']);
    assert.deepEqual((await h.call('GET', `${CONFIGMAPS}/one`)).body.metadata.labels, { defaulted: 'yes' });
    const review = server.calls.find((call) => call.path === '/validate')!;
    // The validating webhook saw the mutated object; the review is the apiserver's.
    assert.equal(review.url, '/validate?timeout=10s');
    assert.equal(review.headers['user-agent'], 'kube-apiserver-admission');
    assert.equal(review.review.operation, 'CREATE');
    assert.deepEqual(review.review.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(review.review.namespace, 'default');
    assert.equal(review.review.oldObject, null);
    assert.equal(review.review.dryRun, false);
    assert.deepEqual(review.review.object.metadata.labels, { defaulted: 'yes' });
    assert.equal(server.calls.find((call) => call.path === '/mutate')!.url, '/mutate?timeout=10s');
    const refused = await h.call('POST', CONFIGMAPS, { metadata: { name: 'two' }, data: { forbidden: 'x' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'admission webhook "validate.example.com" denied the request: forbidden is forbidden');
    assert.equal(refused.body.reason, 'Forbidden');
    // A denial without a status is 400 without explanation.
    server.handle('/validate', () => ({ allowed: false }));
    const bare = await h.call('PUT', `${CONFIGMAPS}/one`, { metadata: { name: 'one' }, data: { a: 'c' } });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.message, 'admission webhook "validate.example.com" denied the request without explanation');
    await h.call('DELETE', `${MUTATING}/defaulter`);
    await h.call('DELETE', `${VALIDATING}/validator`);
  });

  it('reaches a Service reference through its Endpoints, verifying the certificate against <svc>.<ns>.svc', async () => {
    server.handle('/svc', () => ({ allowed: false, status: { message: 'through the service' } }));
    await h.call('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'hooks' }, spec: { ports: [{ port: 443, targetPort: 9443 }] } });
    await configure(VALIDATING, 'by-service', [
      webhook('svc.example.com', { service: { namespace: 'default', name: 'hooks', path: '/svc' }, caBundle: server.caBundle }),
    ]);
    const noEndpoints = await h.call('POST', CONFIGMAPS, { metadata: { name: 'svc' } });
    assert.equal(noEndpoints.status, 500);
    assert.equal(
      noEndpoints.body.message,
      'Internal error occurred: failed calling webhook "svc.example.com": could not get REST client: no endpoints available for service "hooks"',
    );
    await h.call('POST', '/api/v1/namespaces/default/endpoints', {
      metadata: { name: 'hooks' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: server.port }] }],
    });
    const refused = await h.call('POST', CONFIGMAPS, { metadata: { name: 'svc' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.message, 'admission webhook "svc.example.com" denied the request: through the service');
    await h.call('DELETE', `${VALIDATING}/by-service`);
  });

  it('reaches a Service without Endpoints through its ready EndpointSlices', async () => {
    const sliced = await startWebhookServer(['sliced.default.svc']);
    try {
      sliced.handle('/slice', () => ({ allowed: false, status: { message: 'through a slice' } }));
      await h.call('POST', '/api/v1/namespaces/default/services', {
        metadata: { name: 'sliced' },
        spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
      });
      await configure(VALIDATING, 'by-slice', [
        webhook('slice.example.com', { service: { namespace: 'default', name: 'sliced', path: '/slice' }, caBundle: sliced.caBundle }),
      ]);
      const slice = (name: string, ready: boolean, port: number) => ({
        metadata: { name, labels: { 'kubernetes.io/service-name': 'sliced' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready } }],
        ports: [{ name: 'https', port }],
      });
      // A slice whose only endpoint is not ready gives no address.
      assert.equal((await h.call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', slice('sliced-a', false, sliced.port))).status, 201);
      const none = await h.call('POST', CONFIGMAPS, { metadata: { name: 'sliced' } });
      assert.equal(
        none.body.message,
        'Internal error occurred: failed calling webhook "slice.example.com": could not get REST client: no endpoints available for service "sliced"',
      );
      assert.equal((await h.call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', slice('sliced-b', true, sliced.port))).status, 201);
      const refused = await h.call('POST', CONFIGMAPS, { metadata: { name: 'sliced' } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.message, 'admission webhook "slice.example.com" denied the request: through a slice');
      assert.equal(sliced.calls.at(-1)?.headers['host'], 'sliced.default.svc:443');
      await h.call('DELETE', `${VALIDATING}/by-slice`);
    } finally {
      await sliced.close();
    }
  });

  it('takes a non-AdmissionReview answer, or a validating webhook answering a patch, for an invalid response', async () => {
    // The right uid, but no apiVersion and kind.
    server.handle('/not-a-review', (request) => ({ raw: JSON.stringify({ response: { uid: request['uid'], allowed: true } }) }));
    server.handle('/patching', () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]) }));
    for (const [path, text] of [
      ['/not-a-review', 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind='],
      ['/patching', 'validating webhook may not return response.patch'],
    ] as const) {
      await configure(VALIDATING, 'invalid', [webhook('invalid.example.com', { url: `${server.base}${path}`, caBundle: server.caBundle })]);
      const answer = await h.call('POST', CONFIGMAPS, { metadata: { name: 'invalid' } });
      assert.equal(answer.status, 500);
      assert.equal(answer.body.message, `Internal error occurred: failed calling webhook "invalid.example.com": received invalid webhook response: ${text}`);
      await h.call('DELETE', `${VALIDATING}/invalid`);
    }
  });

  it('answers call failures per failurePolicy with the apiserver texts: refused, bad certificate, invalid response, timeout', async () => {
    const down = await startWebhookServer();
    await down.close();
    await configure(VALIDATING, 'down', [webhook('down.example.com', { url: `${down.base}/x`, caBundle: down.caBundle }, { failurePolicy: 'Fail' })]);
    // NamespaceLifecycle comes first: a missing namespace is the 404, whatever the webhooks.
    const missing = await h.call('POST', '/api/v1/namespaces/nope/configmaps', { metadata: { name: 'f0' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'namespaces "nope" not found');
    const refused = await h.call('POST', CONFIGMAPS, { metadata: { name: 'f1' } });
    assert.equal(refused.status, 500);
    assert.equal(
      refused.body.message,
      `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "${down.base}/x?timeout=10s": dial tcp 127.0.0.1:${down.port}: connect: connection refused`,
    );
    assert.equal(refused.body.reason, 'InternalError');
    const ignore = (await h.call('GET', `${VALIDATING}/down`)).body;
    ignore.webhooks[0].failurePolicy = 'Ignore';
    assert.equal((await h.call('PUT', `${VALIDATING}/down`, ignore)).status, 200);
    assert.equal((await h.call('POST', CONFIGMAPS, { metadata: { name: 'f1' } })).status, 201);
    await h.call('DELETE', `${VALIDATING}/down`);

    const other = await startWebhookServer();
    await configure(VALIDATING, 'untrusted', [webhook('untrusted.example.com', { url: `${server.base}/validate`, caBundle: other.caBundle })]);
    const untrusted = await h.call('POST', CONFIGMAPS, { metadata: { name: 'f2' } });
    assert.equal(
      untrusted.body.message,
      `Internal error occurred: failed calling webhook "untrusted.example.com": failed to call webhook: Post "${server.base}/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    await other.close();
    await h.call('DELETE', `${VALIDATING}/untrusted`);

    server.handle('/wrong-uid', () => ({
      raw: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'nope', allowed: true } }),
    }));
    await configure(VALIDATING, 'wrong-uid', [webhook('uid.example.com', { url: `${server.base}/wrong-uid`, caBundle: server.caBundle })]);
    const invalid = await h.call('POST', CONFIGMAPS, { metadata: { name: 'f3' } });
    assert.match(
      invalid.body.message,
      /^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "nope"$/,
    );
    await h.call('DELETE', `${VALIDATING}/wrong-uid`);

    server.handle('/hang', () => 'hang');
    await configure(VALIDATING, 'hang', [webhook('hang.example.com', { url: `${server.base}/hang`, caBundle: server.caBundle }, { timeoutSeconds: 1 })]);
    const pending = h.call('POST', CONFIGMAPS, { metadata: { name: 'f4' } });
    // While the webhook hangs, the server answers everything else, writes of other kinds included.
    assert.equal((await h.call('GET', CONFIGMAPS)).status, 200);
    assert.equal((await h.call('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'meanwhile' } })).status, 201);
    const timedOut = await pending;
    assert.equal(timedOut.status, 500);
    assert.equal(
      timedOut.body.message,
      `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${server.base}/hang?timeout=1s": context deadline exceeded`,
    );
    await h.call('DELETE', `${VALIDATING}/hang`);
  });

  it('refuses a dry run to a webhook with side effects, honours matchConditions, and reinvokes IfNeeded webhooks', async () => {
    server.handle('/first', (request) => ({
      allowed: true,
      ...(request.object.metadata.labels?.second === 'yes' ? jsonPatch([{ op: 'add', path: '/metadata/labels/first', value: 'after-second' }]) : {}),
    }));
    server.handle('/second', () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { second: 'yes' } }]) }));
    await configure(MUTATING, 'a-first', [
      webhook('first.example.com', { url: `${server.base}/first`, caBundle: server.caBundle }, { reinvocationPolicy: 'IfNeeded' }),
    ]);
    await configure(MUTATING, 'b-second', [
      webhook(
        'second.example.com',
        { url: `${server.base}/second`, caBundle: server.caBundle },
        { matchConditions: [{ name: 'not-skipped', expression: "!has(object.data) || !('skip' in object.data)" }] },
      ),
    ]);
    const created = await h.call('POST', CONFIGMAPS, { metadata: { name: 'r1' } });
    assert.deepEqual(created.body.metadata.labels, { second: 'yes', first: 'after-second' });
    const skipped = await h.call('POST', CONFIGMAPS, { metadata: { name: 'r2' }, data: { skip: '1' } });
    assert.equal(skipped.body.metadata.labels, undefined);
    const some = (await h.call('GET', `${MUTATING}/b-second`)).body;
    some.webhooks[0].sideEffects = 'Some';
    // v1 accepts only None and NoneOnDryRun from a configuration that had no side effects.
    const refused = await h.call('PUT', `${MUTATING}/b-second`, some);
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      'MutatingWebhookConfiguration.admissionregistration.k8s.io "b-second" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
    // A configuration that says Some (as v1beta1-era objects may, stored before v1) cannot take a dry run.
    const kind = ADMISSION_STORE_KINDS.mutatingWebhooks;
    const record = (await h.store.list<{ metadata: { name: string }; webhooks: Record<string, unknown>[] }>(kind)).find(
      (item) => item.value.metadata.name === 'b-second',
    );
    assert.ok(record !== undefined);
    const legacy = structuredClone(record.value);
    legacy.webhooks[0]!['sideEffects'] = 'Some';
    await h.store.transact((tx) => tx.put(kind, record.key, legacy));
    const dry = await h.call('POST', `${CONFIGMAPS}?dryRun=All`, { metadata: { name: 'r3' } });
    assert.equal(dry.status, 400);
    assert.equal(dry.body.message, 'admission webhook "second.example.com" does not support dry run');
    await h.call('DELETE', `${MUTATING}/a-first`);
    await h.call('DELETE', `${MUTATING}/b-second`);
  });
});
