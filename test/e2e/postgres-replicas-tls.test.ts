// Two `fogbank start --store postgres://…` replicas share fogbank's CA through the database: the
// first makes it, the second reads it, each signs its own serving certificate with it; so the
// kubeconfig and the admin client certificate written by one replica work through the other.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startReplicaPair, type ReplicaPair } from '../harness/replicas.ts';

const TOKEN = 'e2e-replicas-tls';

/** whoAmI posts a SelfSubjectReview over HTTPS trusting `ca`, with a client certificate, and returns the user it names. */
function whoAmI(base: string, ca: string, cert: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      `${base}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      { method: 'POST', ca, cert, key, agent: false, headers: { 'content-type': 'application/json' } },
      (response) => {
        let body = '';
        response.on('data', (data: Buffer) => (body += data.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' }));
  });
}

describe('fogbank replicas on one PostgreSQL share one CA', () => {
  let pair: ReplicaPair;
  before(async () => {
    pair = await startReplicaPair('replicas_tls', TOKEN);
  });
  after(async () => pair?.stop());

  const tlsFile = (replica: 'a' | 'b', name: string) => readFileSync(join(pair.work, replica, 'tls', name), 'utf8');

  it('keeps the same CA in both data directories, each with its own serving certificate signed by it', () => {
    assert.equal(tlsFile('a', 'ca.crt'), tlsFile('b', 'ca.crt'));
    assert.notEqual(tlsFile('a', 'serving.crt'), tlsFile('b', 'serving.crt'));
    const ca = new X509Certificate(tlsFile('a', 'ca.crt'));
    for (const replica of ['a', 'b'] as const) assert.equal(new X509Certificate(tlsFile(replica, 'serving.crt')).verify(ca.publicKey), true, replica);
  });

  it("authenticates A's admin client certificate through B, trusting A's CA", async () => {
    const answer = await whoAmI(pair.b.url.replace(/^http:/, 'https:'), tlsFile('a', 'ca.crt'), tlsFile('a', 'admin.crt'), tlsFile('a', 'admin.key'));
    assert.equal(answer.status, 201, answer.body);
    const review = JSON.parse(answer.body) as { status: { userInfo: { username: string; groups: string[] } } };
    assert.equal(review.status.userInfo.username, 'kubernetes-admin');
    assert.deepEqual(review.status.userInfo.groups, ['system:masters', 'system:authenticated']);
  });
});
