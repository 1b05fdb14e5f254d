import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

const TOKEN = 'crd-controller-admin';
const GROUP = 'samplecontroller.k8s.io';
const VERSION = 'v1alpha1';
const PLURAL = 'foos';
const NAMESPACE = 'default';

interface Foo {
  apiVersion: string;
  kind: string;
  metadata: k8s.V1ObjectMeta;
  spec?: { deploymentName?: string; replicas?: number };
  status?: { availableReplicas?: number };
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A small controller as sample-controller writes it, with @kubernetes/client-node: an informer on
 * Foos; for each Foo whose status lags its spec, it writes `status.availableReplicas` through the
 * status subresource and records an Event on the Foo (reason Synced).
 */
class FooController {
  readonly #custom: k8s.CustomObjectsApi;
  readonly #core: k8s.CoreV1Api;
  readonly #informer: k8s.Informer<Foo> & k8s.ObjectCache<Foo>;
  readonly errors: unknown[] = [];
  readonly synced: string[] = [];

  constructor(kc: k8s.KubeConfig) {
    this.#custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.#core = kc.makeApiClient(k8s.CoreV1Api);
    this.#informer = k8s.makeInformer<Foo>(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${PLURAL}`,
      () =>
        this.#custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL }) as Promise<
          k8s.KubernetesListObject<Foo>
        >,
    );
    this.#informer.on('add', (foo) => void this.#reconcile(foo));
    this.#informer.on('update', (foo) => void this.#reconcile(foo));
    this.#informer.on('error', (error) => this.errors.push(error));
  }

  start(): Promise<void> {
    return this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  async #reconcile(foo: Foo): Promise<void> {
    const wanted = foo.spec?.replicas ?? 0;
    if (foo.status?.availableReplicas === wanted) return;
    try {
      const name = foo.metadata.name ?? '';
      await this.#custom.replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace: NAMESPACE,
        plural: PLURAL,
        name,
        body: { ...foo, status: { availableReplicas: wanted } },
      });
      await this.#core.createNamespacedEvent({
        namespace: NAMESPACE,
        body: {
          metadata: { generateName: `${name}.` },
          involvedObject: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'Foo',
            name,
            namespace: NAMESPACE,
            uid: foo.metadata.uid ?? '',
            resourceVersion: foo.metadata.resourceVersion ?? '',
          },
          reason: 'Synced',
          message: 'Foo synced successfully',
          type: 'Normal',
          source: { component: 'sample-controller' },
          firstTimestamp: new Date(),
          lastTimestamp: new Date(),
          count: 1,
        },
      });
      this.synced.push(`${name}:${wanted}`);
    } catch (error) {
      // A conflict means a newer Foo is on its way through the informer; it reconciles that one.
      if (!(error instanceof k8s.ApiException && error.code === 409)) this.errors.push(error);
    }
  }
}

describe('a controller with @kubernetes/client-node on a custom resource: informer, status through the subresource, Events, under RBAC', () => {
  let server: RunningFogbank;
  let admin: k8s.KubeConfig;
  let controllerConfig: k8s.KubeConfig;
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    admin = kubeConfigFor(server.url, TOKEN);
    const crd = parse(readFileSync(new URL('../fixtures/crds/sample-controller-foo.yaml', import.meta.url), 'utf8')) as k8s.V1CustomResourceDefinition;
    const extensions = admin.makeApiClient(k8s.ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({ body: crd });
    await waitFor(async () => {
      const read = await extensions.readCustomResourceDefinition({ name: 'foos.samplecontroller.k8s.io' });
      return read.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true ? true : undefined;
    }, 'the CRD to be Established');

    // The controller runs as a ServiceAccount allowed exactly what sample-controller's role allows.
    const core = admin.makeApiClient(k8s.CoreV1Api);
    const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: NAMESPACE, body: { metadata: { name: 'foo-controller' } } });
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'foo-controller' },
        rules: [
          { apiGroups: [GROUP], resources: ['foos'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [GROUP], resources: ['foos/status'], verbs: ['update'] },
          { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'foo-controller' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'foo-controller' },
        subjects: [{ kind: 'ServiceAccount', name: 'foo-controller', namespace: NAMESPACE }],
      },
    });
    const token = await core.createNamespacedServiceAccountToken({ name: 'foo-controller', namespace: NAMESPACE, body: { spec: { audiences: [] } } });
    controllerConfig = kubeConfigFor(server.url, token.status?.token ?? '');
  });
  after(async () => server.close());

  it('reconciles created and changed Foos: status written, generation untouched by it, one Event per sync', async () => {
    const controller = new FooController(controllerConfig);
    await controller.start();
    try {
      const custom = admin.makeApiClient(k8s.CustomObjectsApi);
      const created = (await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: NAMESPACE,
        plural: PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Foo',
          metadata: { name: 'example-foo' },
          spec: { deploymentName: 'example-foo', replicas: 1 },
          status: { availableReplicas: 7 },
        },
      })) as Foo;
      assert.equal(created.status, undefined, 'status is dropped on create when the status subresource exists');
      assert.equal(created.metadata.generation, 1);

      const read = () =>
        custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'example-foo' }) as Promise<Foo>;
      const synced = await waitFor(async () => {
        const foo = await read();
        return foo.status?.availableReplicas === 1 ? foo : undefined;
      }, 'the controller to write status');
      assert.equal(synced.metadata.generation, 1, 'a status write does not bump generation');

      await custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'example-foo', body: { spec: { replicas: 3 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      const rescaled = await waitFor(async () => {
        const foo = await read();
        return foo.status?.availableReplicas === 3 ? foo : undefined;
      }, 'the controller to follow the spec change');
      assert.equal(rescaled.metadata.generation, 2, 'the spec change bumped generation');

      const core = admin.makeApiClient(k8s.CoreV1Api);
      const events = await waitFor(async () => {
        const list = await core.listNamespacedEvent({ namespace: NAMESPACE, fieldSelector: 'involvedObject.name=example-foo,involvedObject.kind=Foo' });
        return list.items.length >= 2 ? list.items : undefined;
      }, 'two Synced events');
      assert.deepEqual(
        events.map((event) => [event.reason, event.message, event.involvedObject.apiVersion, event.involvedObject.uid]),
        [
          ['Synced', 'Foo synced successfully', `${GROUP}/${VERSION}`, created.metadata.uid],
          ['Synced', 'Foo synced successfully', `${GROUP}/${VERSION}`, created.metadata.uid],
        ],
      );
      assert.deepEqual(controller.synced, ['example-foo:1', 'example-foo:3']);
      assert.deepEqual(controller.errors, []);
    } finally {
      await controller.stop();
    }
  });

  it('holds the controller to its role: it may not write the spec of a Foo nor delete one', async () => {
    const custom = controllerConfig.makeApiClient(k8s.CustomObjectsApi);
    await assert.rejects(
      custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'example-foo' }),
      (error: unknown) => {
        assert.ok(error instanceof k8s.ApiException);
        assert.equal(error.code, 403);
        assert.equal(
          JSON.parse(error.body as string).message,
          'foos.samplecontroller.k8s.io "example-foo" is forbidden: User "system:serviceaccount:default:foo-controller" cannot delete resource "foos" in API group "samplecontroller.k8s.io" in the namespace "default"',
        );
        return true;
      },
    );
    await assert.rejects(
      custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: NAMESPACE, plural: PLURAL, name: 'example-foo', body: { spec: { replicas: 9 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
      (error: unknown) => error instanceof k8s.ApiException && error.code === 403,
    );
  });
});
