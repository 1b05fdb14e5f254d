// The real gcloud, template to rolling update: instance-templates create → instances create
// --source-instance-template → instance-groups managed create --template --size 3 →
// list-instances (three RUNNING) → rolling-action start-update replaces them → the old template's
// delete refused while in use, allowed after.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'e2e-instance-groups';
const ZONE = '--zone=us-central1-a';

describe('gcloud compute instances and managed instance groups from instance templates', { skip: skipUnless('gcloud') }, () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;

  async function ok(...args: string[]): Promise<string> {
    const result = await gcloud.run(...args);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  /** members are list-instances' rows: name, status, action, template. */
  async function members(): Promise<string[][]> {
    const out = await ok('compute', 'instance-groups', 'managed', 'list-instances', 'mig', ZONE, '--format=json');
    const rows = JSON.parse(out) as { instance: string; instanceStatus: string; currentAction: string; version: { instanceTemplate: string } }[];
    const last = (url: string) => url.slice(url.lastIndexOf('/') + 1);
    return rows.map((row) => [last(row.instance), row.instanceStatus, row.currentAction, last(row.version.instanceTemplate)]);
  }

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
    gcloud = new Gcloud(server.url, TOKEN);
  });
  after(async () => {
    gcloud.dispose();
    await server.close();
  });

  it('creates templates and an instance from one', async () => {
    await ok('compute', 'instance-templates', 'create', 't1', '--machine-type=e2-small');
    await ok('compute', 'instance-templates', 'create', 't2', '--machine-type=e2-medium');
    const created = await ok('compute', 'instances', 'create', 'vm1', ZONE, '--source-instance-template=t1');
    assert.match(created, /^vm1\s+us-central1-a\s+e2-small\s+10\.128\.0\.2\s+203\.0\.113\.1\s+RUNNING$/m);
  });

  it('a managed group of three from t1 lists three RUNNING instances', async () => {
    await ok('compute', 'instance-groups', 'managed', 'create', 'mig', ZONE, '--template=t1', '--size=3');
    const rows = await members();
    assert.equal(rows.length, 3);
    for (const [name, status, action, template] of rows) {
      assert.match(name!, /^mig-[a-z0-9]{4}$/);
      assert.deepEqual([status, action, template], ['RUNNING', 'NONE', 't1']);
    }
  });

  it('managed list reads the group’s size from its instance group; instance-groups list-instances lists its instances', async () => {
    const listed = await ok('compute', 'instance-groups', 'managed', 'list', '--format=value(name,size,targetSize)');
    assert.equal(listed.trim(), 'mig\t3\t3');
    const instances = await ok('compute', 'instance-groups', 'list-instances', 'mig', ZONE, '--format=value(instance.basename(),status)');
    assert.deepEqual(instances.trim().split('\n').sort(), (await members()).map(([name, status]) => `${name}\t${status}`).sort());
  });

  it('t1 cannot be deleted while the group uses it', async () => {
    const refused = await gcloud.run('compute', 'instance-templates', 'delete', 't1', '--quiet');
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /The instance_template resource 'projects\/p\/global\/instanceTemplates\/t1' is already being used by 'projects\/p\/zones\/us-central1-a\/instanceGroupManagers\/mig'/,
    );
  });

  it('rolling-action start-update replaces every instance with one from t2; then t1 can go', async () => {
    const before = (await members()).map(([name]) => name);
    await ok('compute', 'instance-groups', 'managed', 'rolling-action', 'start-update', 'mig', ZONE, '--version=template=t2');
    const rows = await members();
    assert.equal(rows.length, 3);
    for (const [name, status, , template] of rows) {
      assert.equal(before.includes(name), false);
      assert.deepEqual([status, template], ['RUNNING', 't2']);
    }
    await ok('compute', 'instance-templates', 'delete', 't1', '--quiet');
  });
});
