import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'e2e-list-filters';

/**
 * gcloud 528 rewrites `--filter` into compute's server-side filter (api_lib/compute/filter_rewrite.py:
 * `operationType eq ".*\binsert\b.*"`, `name eq ".*(^t).*"`, `(a eq …)(b ne …)`) and filters the
 * answer again on its side; the server part must keep every matching item, so the output is what
 * the real service gives. Issue 12 item 4.
 */
describe('gcloud --filter on compute lists against fogbank', () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
    gcloud = new Gcloud(server.url, TOKEN);
    const templates: [string, string][] = [
      ['tpl-web', 'front end web-1'],
      ['tpl-batch', 'nightly batch'],
      ['worker', 'queue worker (web)'],
    ];
    for (const [name, description] of templates) {
      const response = await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, description, properties: { machineType: name === 'worker' ? 'e2-medium' : 'e2-small' } }),
      });
      assert.equal(response.status, 200, await response.text());
    }
    const removed = await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates/tpl-batch`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(removed.status, 200);
  });
  after(async () => {
    await server.close();
  });

  async function lines(...args: string[]): Promise<string[]> {
    const result = await gcloud.run('compute', ...args);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .sort();
  }

  const operationCases: [string, string[]][] = [
    ['operationType=insert', ['insert\ttpl-batch', 'insert\ttpl-web', 'insert\tworker']],
    ['operationType=delete', ['delete\ttpl-batch']],
    ['NOT operationType=insert', ['delete\ttpl-batch']],
    ['name~^t', []],
    ['name~^operation-', ['delete\ttpl-batch', 'insert\ttpl-batch', 'insert\ttpl-web', 'insert\tworker']],
    ['targetLink~tpl', ['delete\ttpl-batch', 'insert\ttpl-batch', 'insert\ttpl-web']],
    ['targetLink:tpl-web', ['insert\ttpl-web']],
    ['operationType=insert AND targetLink~batch$', ['insert\ttpl-batch']],
    ['operationType=delete OR targetLink:worker', ['delete\ttpl-batch', 'insert\tworker']],
    ['status=DONE AND progress=100', ['delete\ttpl-batch', 'insert\ttpl-batch', 'insert\ttpl-web', 'insert\tworker']],
  ];
  for (const [filter, expected] of operationCases) {
    it(`operations list --filter=${filter}`, async () => {
      assert.deepEqual(await lines('operations', 'list', `--filter=${filter}`, '--format=value(operationType,targetLink.basename())'), expected);
    });
  }

  const templateCases: [string, string[]][] = [
    ['name~^t', ['tpl-web']],
    ['name=tpl-web', ['tpl-web']],
    ['name:tpl', ['tpl-web']],
    ['NOT name:tpl', ['worker']],
    ['description:web', ['tpl-web', 'worker']],
    ['description:web-1', ['tpl-web']],
    ['description~"\\(web\\)"', ['worker']],
    ['properties.machineType=e2-medium', ['worker']],
    ['name~^t OR name~r$', ['tpl-web', 'worker']],
    ['name=(tpl-web worker)', ['tpl-web', 'worker']],
    ['-name=worker AND description:front', ['tpl-web']],
  ];
  for (const [filter, expected] of templateCases) {
    it(`instance-templates list --filter=${filter}`, async () => {
      assert.deepEqual(await lines('instance-templates', 'list', `--filter=${filter}`, '--format=value(name)'), expected);
    });
  }

  // gcloud's = is a word match (\b…\b), so family=debian-12 also matches debian-12-arm64, as against the real service.
  it('images list --filter (gcloud sends it to every public image project in one batch)', async () => {
    assert.deepEqual(await lines('images', 'list', '--filter=family=debian-12', '--format=value(name)'), [
      'debian-12-bookworm-arm64-v20250610',
      'debian-12-bookworm-v20250610',
    ]);
    assert.deepEqual(await lines('images', 'list', '--filter=family=debian-12 AND NOT name~arm', '--format=value(name)'), ['debian-12-bookworm-v20250610']);
    assert.deepEqual(await lines('images', 'list', '--filter=name~^debian-1[12]-.*-v2025', '--format=value(family)'), [
      'debian-11',
      'debian-12',
      'debian-12-arm64',
    ]);
    // A *Timestamp key is sent bare and in UTC (creationTimestamp eq 2025-06-10T19:00:00.000Z).
    assert.deepEqual(await lines('images', 'list', '--filter=creationTimestamp=2025-06-10T12:00:00.000-07:00 AND family~^debian', '--format=value(name)'), [
      'debian-11-bullseye-v20250610',
      'debian-12-bookworm-arm64-v20250610',
      'debian-12-bookworm-v20250610',
    ]);
  });

  it('the server-side part gcloud sends keeps every match by itself', async () => {
    const serverSide = async (path: string, filter: string): Promise<string[]> => {
      const response = await fetch(`${server.url}/compute/v1/projects/p/${path}?filter=${encodeURIComponent(filter)}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { items: Record<string, { operations?: { targetLink: string }[]; instanceTemplates?: { name: string }[] }> };
      return Object.values(body.items)
        .flatMap((scope) => [...(scope.operations ?? []).map((op) => op.targetLink.split('/').at(-1)!), ...(scope.instanceTemplates ?? []).map((t) => t.name)])
        .sort();
    };
    assert.deepEqual(await serverSide('aggregated/operations', 'operationType eq ".*\\bdelete\\b.*"'), ['tpl-batch']);
    assert.deepEqual(await serverSide('aggregated/instanceTemplates', 'name eq ".*(^t).*"'), ['tpl-web']);
    assert.deepEqual(await serverSide('aggregated/instanceTemplates', '(name ne ".*\\btpl\\-web\\b.*")(description eq ".*\\bweb\\b.*")'), ['worker']);
  });
});
