// What README says about gcloud's compute endpoint override: it must be an absolute URL ending
// in `/`; with the prefix or at the root both work, without the slash or the scheme gcloud refuses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'e2e-override';

describe('gcloud api_endpoint_overrides/compute', { skip: skipUnless('gcloud') }, () => {
  let server: RunningFogbank;
  const made: Gcloud[] = [];
  const gcloud = (override: string): Gcloud => {
    const client = new Gcloud(server.url, TOKEN, 'p', override);
    made.push(client);
    return client;
  };
  before(async () => {
    server = await startFogbank({ adminToken: TOKEN, operations: 'instant' });
    const op = await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 't1', properties: { machineType: 'e2-small' } }),
    });
    assert.equal(op.status, 200);
  });
  after(async () => {
    for (const client of made) client.dispose();
    await server.close();
  });

  for (const suffix of ['/compute/v1/', '/']) {
    it(`http://HOST:PORT${suffix} works`, async () => {
      const r = await gcloud(`${server.url}${suffix}`).run('compute', 'instance-templates', 'list', '--format=value(name)');
      assert.equal(r.stdout, 't1\n', r.stderr);
      assert.equal(r.code, 0);
    });
  }

  for (const [what, override] of [
    ['without the trailing /', (url: string) => `${url}/compute/v1`],
    ['as a bare host:port', (url: string) => url.replace('http://', '')],
  ] as const) {
    it(`an override ${what} is refused by gcloud`, async () => {
      const value = override(server.url);
      const r = await gcloud(value).run('compute', 'instance-templates', 'list');
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        new RegExp(
          `The endpoint_overrides property must be an absolute URI beginning with http:// or https:// and ending with a trailing '/'\\. \\[${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\] is not a valid endpoint override\\.`,
        ),
      );
    });
  }
});
