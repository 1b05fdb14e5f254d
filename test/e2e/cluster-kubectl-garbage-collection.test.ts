import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-gc-admin';

describe('the garbage collector with the real kubectl: delete --cascade=background|foreground|orphan', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const uidOf = async (name: string) => (await kubectl.run(['get', 'configmap', name, '-o', 'jsonpath={.metadata.uid}'])).stdout;
  const json = async (name: string) => {
    const result = await kubectl.run(['get', 'configmap', name, '-o', 'json', '--ignore-not-found']);
    return result.stdout === '' ? undefined : JSON.parse(result.stdout);
  };
  /** family creates an owner ConfigMap and dependents referencing it, each a controller reference that blocks its owner. */
  const family = async (owner: string, dependents: readonly string[], dependentExtra: readonly string[] = []) => {
    assert.equal((await kubectl.run(['create', 'configmap', owner])).code, 0);
    const uid = await uidOf(owner);
    const documents = dependents.map((name) =>
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        `  name: ${name}`,
        ...dependentExtra,
        '  ownerReferences:',
        `  - {apiVersion: v1, kind: ConfigMap, name: ${owner}, uid: ${uid}, controller: true, blockOwnerDeletion: true}`,
      ].join('\n'),
    );
    const path = join(kubectl.dir, `${owner}.yaml`);
    writeFileSync(path, `${documents.join('\n---\n')}\n`);
    const created = await kubectl.run(['create', '-f', path]);
    assert.equal(created.code, 0, created.stderr);
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('--cascade=foreground: the owner waits, marked, until its dependents are gone; kubectl waits for the owner', async () => {
    await family('fg', ['fg-held'], ['  finalizers: [example.com/hold]']);
    const deleted = await kubectl.run(['delete', 'configmap', 'fg', '--cascade=foreground', '--wait=false']);
    assert.equal(deleted.stdout, 'configmap "fg" deleted\n', deleted.stderr);
    const waitingOwner = await kubectl.run(['wait', '--for=jsonpath={.metadata.deletionTimestamp}', 'configmap/fg', '--timeout=20s']);
    assert.equal(waitingOwner.code, 0, waitingOwner.stderr);
    const owner = await json('fg');
    assert.deepEqual(owner.metadata.finalizers, ['foregroundDeletion']);
    // The dependent is being deleted first (its own finalizer holds it), and the owner stays while it is there.
    const held = await kubectl.run(['wait', '--for=jsonpath={.metadata.deletionTimestamp}', 'configmap/fg-held', '--timeout=20s']);
    assert.equal(held.code, 0, held.stderr);
    assert.ok(await json('fg'), 'the owner outlives its blocking dependent');
    const released = await kubectl.run(['patch', 'configmap', 'fg-held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    assert.equal(released.code, 0, released.stderr);
    const gone = await kubectl.run(['wait', '--for=delete', 'configmap/fg', '--timeout=20s']);
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal(await json('fg-held'), undefined);

    // With kubectl's default --wait: it returns once the owner is gone, after its dependents.
    await family('fg2', ['fg2-a', 'fg2-b']);
    const waited = await kubectl.run(['delete', 'configmap', 'fg2', '--cascade=foreground']);
    assert.equal(waited.stdout, 'configmap "fg2" deleted\n', waited.stderr);
    assert.equal(await json('fg2'), undefined);
    assert.equal(await json('fg2-a'), undefined);
    assert.equal(await json('fg2-b'), undefined);
  });

  it('--cascade=orphan keeps the dependents with their references removed', async () => {
    await family('or', ['or-a', 'or-b']);
    const deleted = await kubectl.run(['delete', 'configmap', 'or', '--cascade=orphan']);
    assert.equal(deleted.stdout, 'configmap "or" deleted\n', deleted.stderr);
    assert.equal(await json('or'), undefined);
    for (const name of ['or-a', 'or-b']) {
      const dependent = await json(name);
      assert.ok(dependent, `${name} kept`);
      assert.equal(dependent.metadata.ownerReferences, undefined);
    }
  });

  it('the default (and --cascade=background) deletes the owner, then the collector its dependents', async () => {
    await family('bg', ['bg-a', 'bg-b']);
    assert.equal((await kubectl.run(['delete', 'configmap', 'bg'])).stdout, 'configmap "bg" deleted\n');
    for (const name of ['bg-a', 'bg-b']) {
      const gone = await kubectl.run(['wait', '--for=delete', `configmap/${name}`, '--timeout=20s']);
      assert.equal(gone.code, 0, gone.stderr);
    }
    await family('bg2', ['bg2-a']);
    assert.equal((await kubectl.run(['delete', 'configmap', 'bg2', '--cascade=background'])).code, 0);
    assert.equal((await kubectl.run(['wait', '--for=delete', 'configmap/bg2-a', '--timeout=20s'])).code, 0);
  });
});
