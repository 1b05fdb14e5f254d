import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { createClusterService } from '../../src/services/cluster/index.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

const ADMIN = 'client-node-faults-admin';

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a @kubernetes/client-node informer through injected watch faults', () => {
  let server: RunningFogbank;
  let kc: k8s.KubeConfig;

  before(async () => {
    // Watches that name no timeout end after a second, so the informer watches again soon and meets the rule.
    server = await startFogbank({
      ephemeral: true,
      adminToken: ADMIN,
      services: [createClusterService({ bootstrapPolicy: false, watch: { defaultTimeoutSeconds: () => 1 } })],
    });
    kc = kubeConfigFor(server.url, ADMIN);
  });
  after(async () => server.close());

  const informerOver = (): {
    informer: k8s.Informer<k8s.V1ClusterRole> & k8s.ObjectCache<k8s.V1ClusterRole>;
    lists: () => number;
    seen: string[];
    errors: unknown[];
  } => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    let lists = 0;
    const informer = k8s.makeInformer(kc, '/apis/rbac.authorization.k8s.io/v1/clusterroles', () => {
      lists++;
      return rbac.listClusterRole();
    });
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (role) => seen.push(`add:${role.metadata?.name}`));
    informer.on('error', (error) => errors.push(error));
    return { informer, lists: () => lists, seen, errors };
  };
  const create = (name: string): Promise<Response> =>
    fetch(`${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name }, rules: [] }),
    });

  it('survives an injected 410 Gone by relisting, and misses no object', async () => {
    const { informer, lists, seen, errors } = informerOver();
    await informer.start();
    try {
      assert.equal((await create('gone-before')).status, 201);
      await waitFor(() => seen.includes('add:gone-before'), 'the first add');
      await server.faults.add({ method: 'watch clusterroles', watch: 'gone', times: 1 });
      // Written while the informer is between its 410 and its relist, or just before: either way it must arrive.
      await waitFor(() => server.faults.list().length === 0, 'the watch that met the rule');
      assert.equal((await create('gone-during')).status, 201);
      await waitFor(() => lists() >= 2, 'the relist after 410');
      assert.equal((await create('gone-after')).status, 201);
      await waitFor(() => seen.includes('add:gone-after'), 'the add after the relist');
      assert.deepEqual(errors, []);
      assert.deepEqual(
        informer
          .list()
          .map((role) => role.metadata?.name)
          .sort(),
        ['gone-after', 'gone-before', 'gone-during'],
      );
    } finally {
      await informer.stop();
    }
  });

  it('watches again after an injected early close, without relisting', async () => {
    const { informer, lists, seen, errors } = informerOver();
    await informer.start();
    try {
      await waitFor(() => seen.length === 3, 'the existing roles');
      await server.faults.add({ method: 'watch clusterroles', watch: 'close', times: 1 });
      await waitFor(() => server.faults.list().length === 0, 'the watch that met the rule');
      assert.equal((await create('close-after')).status, 201);
      await waitFor(() => seen.includes('add:close-after'), 'the add after the early close');
      assert.equal(lists(), 1);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });
});
