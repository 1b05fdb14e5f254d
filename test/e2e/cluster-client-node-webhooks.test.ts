import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { jsonPatch, type ReviewRequest, startWebhookServer, type WebhookServer } from '../../src/testing/webhook-server.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

const TOKEN = 'client-node-webhooks-admin';
const GROUP = 'batch.tutorial.kubebuilder.io';
const MUTATE_PATH = '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob';
const VALIDATE_PATH = '/validate-batch-tutorial-kubebuilder-io-v1-cronjob';

const CRD: k8s.V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `cronjobs.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'cronjobs', singular: 'cronjob', kind: 'CronJob', listKind: 'CronJobList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { schedule: { type: 'string' }, suspend: { type: 'boolean' }, concurrencyPolicy: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

/** The kubebuilder pair for CronJob: the defaulter fills suspend and concurrencyPolicy, the validator checks the schedule (CustomValidator's 403). */
function defaulter(request: ReviewRequest): Record<string, unknown> {
  const spec = request.object?.spec ?? {};
  const operations: unknown[] = [];
  if (spec.suspend === undefined) operations.push({ op: 'add', path: '/spec/suspend', value: false });
  if (spec.concurrencyPolicy === undefined) operations.push({ op: 'add', path: '/spec/concurrencyPolicy', value: 'Allow' });
  return { allowed: true, ...(operations.length === 0 ? {} : jsonPatch(operations)) };
}

function validator(request: ReviewRequest): Record<string, unknown> {
  const schedule = String(request.object?.spec?.schedule ?? '');
  if (schedule.trim().split(/\s+/).length === 5) return { allowed: true };
  return {
    allowed: false,
    status: {
      code: 403,
      reason: 'Forbidden',
      message: `CronJob.batch.tutorial.kubebuilder.io "${request.name}" is invalid: spec.schedule: Invalid value: "${schedule}": expected exactly 5 fields`,
    },
  };
}

function webhookEntry(name: string, path: string, extra: Record<string, unknown> = {}): k8s.V1ValidatingWebhook & k8s.V1MutatingWebhook {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
    rules: [{ apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['cronjobs'] }],
    ...extra,
  };
}

describe('admission webhooks for a custom resource with @kubernetes/client-node: the kubebuilder defaulting and validating pair', () => {
  let fogbank: RunningFogbank;
  let webhooks: WebhookServer;
  let custom: k8s.CustomObjectsApi;
  let admission: k8s.AdmissionregistrationV1Api;
  const create = (name: string, spec: Record<string, unknown>) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'cronjobs',
      body: { apiVersion: `${GROUP}/v1`, kind: 'CronJob', metadata: { name }, spec },
    });
  const refusal = async (promise: Promise<unknown>): Promise<{ code: number; message: string }> => {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof k8s.ApiException, String(error));
      const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
      return { code: error.code, message: body.message };
    }
    throw new Error('the write was admitted');
  };

  before(async () => {
    fogbank = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    const config = kubeConfigFor(fogbank.url, TOKEN);
    custom = config.makeApiClient(k8s.CustomObjectsApi);
    admission = config.makeApiClient(k8s.AdmissionregistrationV1Api);
    const core = config.makeApiClient(k8s.CoreV1Api);
    await config.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: CRD });
    // The webhook server runs in the test, with a certificate of its own CA for the Service's name.
    webhooks = await startWebhookServer(['webhook-service.system.svc']);
    webhooks.handle(MUTATE_PATH, defaulter);
    webhooks.handle(VALIDATE_PATH, validator);
    webhooks.handle('/hang', () => 'hang');
    // controller-gen's configuration names a Service; its Endpoints say where the server is.
    await core.createNamespace({ body: { metadata: { name: 'system' } } });
    await core.createNamespacedService({
      namespace: 'system',
      body: { metadata: { name: 'webhook-service' }, spec: { ports: [{ port: 443, targetPort: 9443 }] } },
    });
    await core.createNamespacedEndpoints({
      namespace: 'system',
      body: { metadata: { name: 'webhook-service' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: webhooks.port }] }] },
    });
    const caBundle = webhooks.caBundle;
    await admission.createMutatingWebhookConfiguration({
      body: {
        metadata: { name: 'mutating-webhook-configuration' },
        webhooks: [
          {
            ...webhookEntry('mcronjob-v1.kb.io', MUTATE_PATH),
            clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: MUTATE_PATH }, caBundle },
          },
        ],
      },
    });
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'validating-webhook-configuration' },
        webhooks: [
          {
            ...webhookEntry('vcronjob-v1.kb.io', VALIDATE_PATH),
            clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: VALIDATE_PATH }, caBundle },
          },
        ],
      },
    });
  });
  after(async () => {
    await webhooks.close();
    await fogbank.close();
  });

  it('stores the defaulted object and refuses an invalid one with the webhook text and code', async () => {
    const created = (await create('nightly', { schedule: '0 3 * * *' })) as { spec: Record<string, unknown> };
    assert.deepEqual(created.spec, { schedule: '0 3 * * *', suspend: false, concurrencyPolicy: 'Allow' });
    const read = (await custom.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: 'default', plural: 'cronjobs', name: 'nightly' })) as {
      spec: Record<string, unknown>;
    };
    assert.deepEqual(read.spec, { schedule: '0 3 * * *', suspend: false, concurrencyPolicy: 'Allow' });
    // Both saw the request through the Service's name; the validator saw the defaulted object.
    const validated = webhooks.calls.find((call) => call.path === VALIDATE_PATH)!;
    assert.equal(validated.headers['host'], 'webhook-service.system.svc:443');
    assert.equal(validated.review.object.spec.suspend, false);
    const refused = await refusal(create('broken', { schedule: 'every night' }));
    assert.deepEqual(refused, {
      code: 403,
      message:
        'admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "broken" is invalid: spec.schedule: Invalid value: "every night": expected exactly 5 fields',
    });
    // Updates pass both webhooks too.
    const patched = await refusal(
      custom.patchNamespacedCustomObject(
        { group: GROUP, version: 'v1', namespace: 'default', plural: 'cronjobs', name: 'nightly', body: { spec: { schedule: 'never' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
    assert.equal(patched.code, 403);
  });

  it('with the server down: failurePolicy Fail refuses, Ignore admits; timeoutSeconds ends a call that hangs', async () => {
    const port = webhooks.port;
    await webhooks.close();
    const down = await refusal(create('down', { schedule: '* * * * *' }));
    assert.equal(down.code, 500);
    assert.equal(
      down.message,
      `Internal error occurred: failed calling webhook "mcronjob-v1.kb.io": failed to call webhook: Post "https://webhook-service.system.svc:443${MUTATE_PATH}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    for (const name of ['mutating-webhook-configuration', 'validating-webhook-configuration']) {
      const patch = [{ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Ignore' }];
      const options = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
      if (name.startsWith('mutating')) await admission.patchMutatingWebhookConfiguration({ name, body: patch }, options);
      else await admission.patchValidatingWebhookConfiguration({ name, body: patch }, options);
    }
    const admitted = (await create('down', { schedule: 'not checked' })) as { spec: Record<string, unknown> };
    assert.deepEqual(admitted.spec, { schedule: 'not checked' });

    const hanging = await startWebhookServer();
    hanging.handle('/hang', () => 'hang');
    try {
      await admission.createValidatingWebhookConfiguration({
        body: {
          metadata: { name: 'slow' },
          webhooks: [
            { ...webhookEntry('slow.example.com', '/hang'), clientConfig: { url: `${hanging.base}/hang`, caBundle: hanging.caBundle }, timeoutSeconds: 1 },
          ],
        },
      });
      const slow = await refusal(create('slow', { schedule: '* * * * *' }));
      assert.equal(slow.code, 500);
      assert.equal(
        slow.message,
        `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hanging.base}/hang?timeout=1s": context deadline exceeded`,
      );
      assert.equal(hanging.calls[0]?.url, '/hang?timeout=1s');
    } finally {
      await hanging.close();
    }
  });
});
