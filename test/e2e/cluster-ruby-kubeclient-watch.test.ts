// ruby-kubeclient (Debian's ruby-kubeclient) watches through the deprecated /watch/ paths; run as
// a child process against fogbank's HTTP endpoint with the admin token, it must see what is
// created meanwhile: ClusterRoles (all of them, and one by name) and a namespace's Events.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { REPO } from '../harness/paths.ts';
import { spawnOwned, withTimeout } from '../harness/process.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'ruby-kubeclient-e2e-admin';
const SCRIPT = join(REPO, 'test/fixtures/clients/kubeclient-watch.rb');

describe('ruby-kubeclient watches over the /watch/ paths', { skip: skipUnless('ruby-kubeclient') }, () => {
  let server: RunningFogbank;
  before(async () => {
    server = await startFogbank({ adminToken: TOKEN });
  });
  after(async () => server.close());

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 201, await response.text());
  };

  it('receives ADDED for ClusterRoles and Events created while it watches', async () => {
    const list = (await (
      await fetch(`${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=1`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { metadata: { resourceVersion: string } };
    const ruby = spawnOwned(clientPath('ruby-kubeclient'), [SCRIPT, server.url, TOKEN, list.metadata.resourceVersion, 'ruby-b']);
    await ruby.waitForLine(/^watching$/);
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'ruby-a' }, rules: [] });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'ruby-b' }, rules: [] });
    await post('/api/v1/namespaces/default/events', {
      metadata: { name: 'ruby-event' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
      reason: 'Watched',
      message: 'seen by ruby',
      type: 'Normal',
    });
    const exit = await withTimeout(ruby.exited, 60_000, `the ruby watcher to see every event; so far:\n${ruby.lines.join('\n')}\n${ruby.stderr()}`);
    assert.equal(exit, 0, ruby.stderr());
    assert.deepEqual(ruby.lines.filter((line) => line !== 'watching').sort(), [
      'clusterrole ADDED ruby-b',
      'clusterroles ADDED ruby-a',
      'clusterroles ADDED ruby-b',
      'events ADDED ruby-event',
    ]);
  });
});
