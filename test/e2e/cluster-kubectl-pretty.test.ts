// kubectl get --raw prints the body as the server wrote it: with pretty=true the apiserver's
// pretty serializer (json.MarshalIndent, two spaces), without it one line.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Kubectl } from '../harness/kubectl.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'kubectl-pretty-e2e-admin';

describe('kubectl get --raw with pretty=true', { skip: skipUnless('kubectl') }, () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  before(async () => {
    server = await startFogbank({ adminToken: TOKEN });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('prints the ClusterRole list indented with two spaces, as Go indents it', async () => {
    const pretty = await kubectl.run(['get', '--raw', '/apis/rbac.authorization.k8s.io/v1/clusterroles?pretty=true']);
    assert.equal(pretty.stderr, '');
    assert.equal(pretty.code, 0);
    const text = pretty.stdout.trimEnd();
    assert.ok(
      text.startsWith('{\n  "kind": "ClusterRoleList",\n  "apiVersion": "rbac.authorization.k8s.io/v1",\n  "metadata": {\n    "resourceVersion": "'),
      text.slice(0, 200),
    );
    assert.equal(text, JSON.stringify(JSON.parse(text), null, 2));
    assert.ok((JSON.parse(text) as { items: unknown[] }).items.length > 10, 'the default policy is listed');

    const plain = await kubectl.run(['get', '--raw', '/apis/rbac.authorization.k8s.io/v1/clusterroles']);
    assert.equal(plain.stdout.trimEnd().includes('\n'), false, 'without pretty the list is one line');
  });
});
