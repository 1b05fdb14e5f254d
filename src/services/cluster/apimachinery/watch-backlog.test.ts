import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch } from '../../../testing/watch-reader.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const LIMIT = 256 * 1024;
// Each event carries about 100 KB, so 120 of them are far more than the limit plus what the
// kernel's socket buffers on both sides take in before the server's backlog grows.
const WRITES = 120;
const BIG = 'x'.repeat(100_000);

/** openPaused starts a watch whose response nobody reads until `drain` is called. */
function openPaused(url: string): Promise<{ response: IncomingMessage; drain: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, (response) => {
      response.pause();
      resolve({
        response,
        drain: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
            response.on('error', fail);
            response.resume();
          }),
      });
    });
    request.on('error', reject);
  });
}

describe('a watch whose client stops reading', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness({ store: { changeRetention: 1000 }, watch: { backlogLimitBytes: LIMIT } });
    base = await h.listen();
  });
  after(async () => h.close());

  it('is ended cleanly once its backlog passes the limit, without a gap, and can be resumed from its last resourceVersion', async () => {
    const from = await h.store.currentRevision();
    const stuck = await openPaused(`${base}${ROLES}?watch=true&resourceVersion=${from}`);
    assert.equal(stuck.response.statusCode, 200);
    for (let i = 0; i < WRITES; i++) {
      const created = await h.call('POST', ROLES, { metadata: { name: `big-${i}`, annotations: { big: BIG } }, rules: [] });
      assert.equal(created.status, 201);
    }
    // The stream ends (its terminating chunk arrives) although the watch named no timeout.
    const lines = (await stuck.drain()).split('\n').filter((line) => line !== '');
    const revisions = lines.map((line) => {
      const event = JSON.parse(line) as { type: string; object: { metadata: { resourceVersion: string } } };
      assert.equal(event.type, 'ADDED');
      return Number(event.object.metadata.resourceVersion);
    });
    assert.ok(revisions.length > 0 && revisions.length < WRITES, `${revisions.length} of ${WRITES} events before the end`);
    assert.deepEqual(
      revisions,
      revisions.map((_, i) => from + 1 + i),
      'every event up to the end, in order',
    );

    // What a reflector does next: watch again from the last resourceVersion it saw.
    const last = revisions[revisions.length - 1]!;
    const resumed = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${last}`, ADMIN_TOKEN);
    await resumed.until((events) => events.length === from + WRITES - last, 'the rest');
    assert.deepEqual(
      resumed.events.map((event) => Number(event.object.metadata.resourceVersion)),
      Array.from({ length: from + WRITES - last }, (_, i) => last + 1 + i),
    );
    resumed.close();
  });

  it('sends a large initial list to a client that reads slowly, waiting for it instead of ending the watch', async () => {
    const total = (await h.call('GET', ROLES)).body.items.length as number;
    const slow = await openPaused(`${base}${ROLES}?watch=true&timeoutSeconds=2`);
    // Nothing is read for a while: the initial events wait for the client, the watch stays open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const names = (await slow.drain())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name);
    assert.equal(names.length, total, 'every object of the initial state');
  });
});
