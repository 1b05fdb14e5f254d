import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

const TOKEN = 'client-node-gc-admin';
const GROUP = 'samplecontroller.k8s.io';
const VERSION = 'v1alpha1';
const PLURAL = 'foos';
const NAMESPACE = 'default';

/** gone resolves once `read` answers 404 (what a test of an operator polls for), else fails after a bound. */
async function gone(read: () => Promise<unknown>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    try {
      await read();
    } catch (error) {
      if (error instanceof k8s.ApiException && error.code === 404) return;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`${what} was never garbage-collected`);
}

describe('the garbage collector with @kubernetes/client-node: custom resources as owners and dependents (envtest has none)', () => {
  let server: RunningFogbank;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    const config = kubeConfigFor(server.url, TOKEN);
    const crd = parse(readFileSync(new URL('../fixtures/crds/sample-controller-foo.yaml', import.meta.url), 'utf8')) as k8s.V1CustomResourceDefinition;
    await config.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: crd });
    custom = config.makeApiClient(k8s.CustomObjectsApi);
    core = config.makeApiClient(k8s.CoreV1Api);
  });
  after(async () => server.close());

  it('deleting a custom resource garbage-collects the ConfigMaps it owns, as an operator test expects', async () => {
    const foo = (await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: PLURAL,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Foo', metadata: { name: 'example' }, spec: { deploymentName: 'example', replicas: 1 } },
    })) as { metadata: k8s.V1ObjectMeta };
    const owner: k8s.V1OwnerReference = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Foo',
      name: 'example',
      uid: foo.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    for (const name of ['example-config', 'example-scripts']) {
      await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name, ownerReferences: [owner] }, data: { key: name } } });
    }
    const unowned = await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name: 'unowned' } } });
    assert.ok(unowned.metadata?.uid);

    await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'example' });
    for (const name of ['example-config', 'example-scripts']) {
      await gone(() => core.readNamespacedConfigMap({ name, namespace: NAMESPACE }), name);
    }
    assert.equal((await core.readNamespacedConfigMap({ name: 'unowned', namespace: NAMESPACE })).metadata?.name, 'unowned');
  });

  it('a custom resource owned by a ConfigMap goes with it; deleted in the foreground, the owner outlives it', async () => {
    const config = await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name: 'owner-config' } } });
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Foo',
        metadata: {
          name: 'owned',
          finalizers: ['example.com/cleanup'],
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-config', uid: config.metadata?.uid ?? '', blockOwnerDeletion: true }],
        },
        spec: { deploymentName: 'owned', replicas: 1 },
      },
    });
    const marked = await core.deleteNamespacedConfigMap({ name: 'owner-config', namespace: NAMESPACE, body: { propagationPolicy: 'Foreground' } });
    assert.ok(marked);
    // The Foo is being deleted, held by its finalizer; the ConfigMap waits for it.
    for (let attempt = 0; ; attempt++) {
      const owned = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'owned' })) as {
        metadata: k8s.V1ObjectMeta;
      };
      if (owned.metadata.deletionTimestamp !== undefined) break;
      assert.ok(attempt < 400, 'the Foo was never deleted');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const waiting = await core.readNamespacedConfigMap({ name: 'owner-config', namespace: NAMESPACE });
    assert.deepEqual(waiting.metadata?.finalizers, ['foregroundDeletion']);
    await custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'owned', body: { metadata: { finalizers: null } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await gone(() => core.readNamespacedConfigMap({ name: 'owner-config', namespace: NAMESPACE }), 'owner-config');
  });
});
