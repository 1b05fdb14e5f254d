import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  GlobalOperationsClient,
  InstanceTemplatesClient,
  RegionOperationsClient,
  RegionSecurityPoliciesClient,
  SecurityPoliciesClient,
  SubnetworksClient,
} from '@google-cloud/compute';
// The auth library @google-cloud/compute itself depends on: an OAuth2 client holding a bearer token.
import { OAuth2Client } from 'google-auth-library';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'e2e-node-client';
const PROJECT = 'p';
const REGION = 'us-central1';

/** ClientOptions point a @google-cloud/compute client (REST transport) at fogbank over plain HTTP. */
type ClientOptions = ConstructorParameters<typeof InstanceTemplatesClient>[0] & object;

/** An Operation as the client hands it back: `latestResponse` is the compute#operation. */
interface StartedOperation {
  readonly latestResponse: { readonly name?: string | null; readonly status?: unknown; readonly region?: string | null };
}

/** errorOf runs a call expected to fail and returns the HTTP status and the error message fogbank sent. */
async function errorOf(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    // The REST transport surfaces a non-2xx answer as the auth library's GaxiosError, body included.
    const failure = error as { status?: number; message: string };
    const body = JSON.parse(failure.message) as { error: { code: number; message: string } };
    assert.equal(body.error.code, failure.status);
    return { status: failure.status ?? 0, message: body.error.message };
  }
  assert.fail('the call succeeded');
}

/**
 * The official Node client, unmodified, against fogbank: its REST transport, its Operation
 * objects waited on with the operations clients' own `wait` (as Google's samples do), its
 * pagination iterators, aggregatedList, and security policies typed with the real enum values.
 */
describe('@google-cloud/compute against fogbank', () => {
  let server: RunningFogbank;
  let options: ClientOptions;
  let globalOperations: GlobalOperationsClient;
  let regionOperations: RegionOperationsClient;

  /** waitGlobal waits for an Operation with the client's wait method, bounded like gcloud's polling. */
  const waitGlobal = async (operation: StartedOperation): Promise<Record<string, unknown>> => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const [current] = await globalOperations.wait({ project: PROJECT, operation: operation.latestResponse.name! });
      if (current.status === 'DONE') return current as Record<string, unknown>;
    }
    assert.fail('the Operation did not finish');
  };
  const waitRegional = async (operation: StartedOperation): Promise<Record<string, unknown>> => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const [current] = await regionOperations.wait({ project: PROJECT, region: REGION, operation: operation.latestResponse.name! });
      if (current.status === 'DONE') return current as Record<string, unknown>;
    }
    assert.fail('the Operation did not finish');
  };

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    const url = new URL(server.url);
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: TOKEN });
    options = { apiEndpoint: url.hostname, port: Number(url.port), protocol: 'http', fallback: true, authClient };
    globalOperations = new GlobalOperationsClient(options);
    regionOperations = new RegionOperationsClient(options);
  });
  after(async () => {
    await server.close();
  });

  describe('instance templates and Operations', () => {
    let templates: InstanceTemplatesClient;
    before(() => {
      templates = new InstanceTemplatesClient(options);
    });

    it('insert returns an Operation the client waits on; get reads the template back in the real time format', async () => {
      const [operation] = await templates.insert({ project: PROJECT, instanceTemplateResource: { name: 'web-1', properties: { machineType: 'e2-small' } } });
      assert.match(String(operation.latestResponse.name), /^operation-\d+-[0-9a-f]{13}-[0-9a-f]{8}-[0-9a-f]{8}$/);
      const done = await waitGlobal(operation as StartedOperation);
      assert.equal(done['operationType'], 'insert');
      assert.equal(done['error'] ?? undefined, undefined);
      const [template] = await templates.get({ project: PROJECT, instanceTemplate: 'web-1' });
      assert.equal(template.name, 'web-1');
      assert.equal(template.properties?.machineType, 'e2-small');
      assert.match(String(template.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-0[78]:00$/);
      const [byGet] = await globalOperations.get({ project: PROJECT, operation: operation.latestResponse.name! });
      assert.equal(byGet.status, 'DONE');
    });

    it('pagination iterators follow nextPageToken; aggregatedList groups by scope', async () => {
      for (const name of ['web-2', 'web-3']) {
        const [operation] = await templates.insert({ project: PROJECT, instanceTemplateResource: { name, properties: { machineType: 'e2-small' } } });
        await waitGlobal(operation as StartedOperation);
      }
      const names: string[] = [];
      for await (const template of templates.listAsync({ project: PROJECT, maxResults: 1 })) names.push(String(template.name));
      assert.deepEqual(names, ['web-1', 'web-2', 'web-3']);
      const [firstPage, , raw] = await templates.list({ project: PROJECT, maxResults: 2 }, { autoPaginate: false });
      assert.deepEqual(
        firstPage.map((template) => template.name),
        ['web-1', 'web-2'],
      );
      assert.equal(typeof raw?.nextPageToken, 'string');
      const scopes: [string, string[]][] = [];
      for await (const [scope, list] of templates.aggregatedListAsync({ project: PROJECT, maxResults: 2 })) {
        if ((list.instanceTemplates ?? []).length > 0) scopes.push([scope, list.instanceTemplates!.map((template) => String(template.name))]);
      }
      assert.deepEqual(scopes, [
        ['global', ['web-1', 'web-2']],
        ['global', ['web-3']],
      ]);
      const operations: string[] = [];
      for await (const operation of globalOperations.listAsync({ project: PROJECT, filter: 'operationType = insert' }))
        operations.push(String(operation.operationType));
      assert.equal(operations.length, 3);
    });

    it('the default network has its real auto-mode subnet in every region, listed by aggregatedList', async () => {
      const subnetworks = new SubnetworksClient(options);
      const [subnet] = await subnetworks.get({ project: PROJECT, region: 'europe-west1', subnetwork: 'default' });
      assert.equal(subnet.ipCidrRange, '10.132.0.0/20');
      const ranges = new Map<string, string>();
      for await (const [scope, list] of subnetworks.aggregatedListAsync({ project: PROJECT })) {
        for (const item of list.subnetworks ?? []) ranges.set(scope, String(item.ipCidrRange));
      }
      assert.equal(ranges.get('regions/us-central1'), '10.128.0.0/20');
      assert.equal(ranges.get('regions/us-west1'), '10.138.0.0/20');
    });

    it('delete is waited on; a missing template is the real 404', async () => {
      const [operation] = await templates.delete({ project: PROJECT, instanceTemplate: 'web-3' });
      assert.equal((await waitGlobal(operation as StartedOperation))['operationType'], 'delete');
      assert.deepEqual(await errorOf(templates.get({ project: PROJECT, instanceTemplate: 'web-3' })), {
        status: 404,
        message: "The resource 'projects/p/global/instanceTemplates/web-3' was not found",
      });
    });
  });

  for (const scope of ['regional', 'global'] as const) {
    describe(`${scope} security policies of type CLOUD_ARMOR`, () => {
      let regional: RegionSecurityPoliciesClient;
      let global: SecurityPoliciesClient;
      const at = scope === 'regional' ? { project: PROJECT, region: REGION } : { project: PROJECT };
      const wait = (operation: unknown) => (scope === 'regional' ? waitRegional : waitGlobal)(operation as StartedOperation);
      // The two clients have the same methods with the same request shapes, plus `region`; the cast lets one
      // test body drive both (the generated types share no interface to name instead).
      const client = (): RegionSecurityPoliciesClient => (scope === 'regional' ? regional : (global as unknown as RegionSecurityPoliciesClient));

      before(() => {
        regional = new RegionSecurityPoliciesClient(options);
        global = new SecurityPoliciesClient(options);
      });

      it('insert with the real type; the policy answers with it', async () => {
        const [operation] = await client().insert({
          ...at,
          securityPolicyResource: { name: 'armor', type: 'CLOUD_ARMOR', description: 'from the Node client' },
        });
        if (scope === 'regional') assert.equal((operation as StartedOperation).latestResponse.region?.endsWith(`/regions/${REGION}`), true);
        await wait(operation);
        const [policy] = await client().get({ ...at, securityPolicy: 'armor' });
        assert.equal(policy.type, 'CLOUD_ARMOR');
        assert.equal(policy.description, 'from the Node client');
        assert.deepEqual(
          policy.rules?.map((rule) => [rule.priority, rule.action]),
          [[2147483647, 'allow']],
        );
      });

      it('addRule, getRule, patchRule and removeRule, each waited on', async () => {
        const ref = { ...at, securityPolicy: 'armor' };
        await wait(
          (
            await client().addRule({
              ...ref,
              securityPolicyRuleResource: { priority: 1000, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin')" } } },
            })
          )[0],
        );
        const [rule] = await client().getRule({ ...ref, priority: 1000 });
        assert.equal(rule.action, 'deny(403)');
        assert.equal(rule.match?.expr?.expression, "request.path.startsWith('/admin')");
        await wait(
          (await client().patchRule({ ...ref, priority: 1000, securityPolicyRuleResource: { priority: 1000, action: 'deny(404)', description: 'hidden' } }))[0],
        );
        const [patched] = await client().getRule({ ...ref, priority: 1000 });
        assert.deepEqual([patched.action, patched.description, patched.match?.expr?.expression], ['deny(404)', 'hidden', "request.path.startsWith('/admin')"]);
        const bad = await errorOf(
          client().addRule({
            ...ref,
            securityPolicyRuleResource: { priority: 1, action: 'allow', match: { expr: { expression: "evaluatePreconfiguredExpr('nope')" } } },
          }),
        );
        assert.deepEqual(bad, {
          status: 400,
          message: `Invalid value for field 'resource.match.expr': '{ "expression": "evaluatePreconfiguredExpr(\\u0027nope\\u0027)"}'. Error parsing Cloud Armor rule matcher expression: nope isn't a valid preconfigured expression set.`,
        });
        const removal = await wait((await client().removeRule({ ...ref, priority: 1000 }))[0]);
        assert.equal(removal['operationType'], 'removeRule');
        assert.deepEqual(await errorOf(client().getRule({ ...ref, priority: 1000 })), {
          status: 400,
          message: "Invalid value for field 'priority': '1000'. armor does not contain a rule at priority 1000.",
        });
      });

      it('patch with the current fingerprint applies; a stale one is 412 and changes nothing', async () => {
        const ref = { ...at, securityPolicy: 'armor' };
        const [before] = await client().get(ref);
        const stale = await errorOf(client().patch({ ...ref, securityPolicyResource: { description: 'lost', fingerprint: 'AAAAAAAAAAA=' } }));
        assert.deepEqual(stale, { status: 412, message: 'Invalid fingerprint.' });
        await wait((await client().patch({ ...ref, securityPolicyResource: { description: 'patched', fingerprint: before.fingerprint ?? null } }))[0]);
        const [after] = await client().get(ref);
        assert.equal(after.description, 'patched');
        assert.notEqual(after.fingerprint, before.fingerprint);
        assert.equal(after.type, 'CLOUD_ARMOR');
      });

      it('setLabels with the label fingerprint', async () => {
        const ref = { ...at, resource: 'armor' };
        const [before] = await client().get({ ...at, securityPolicy: 'armor' });
        const labels = { labels: { team: 'edge' }, labelFingerprint: before.labelFingerprint ?? null };
        const started =
          scope === 'regional'
            ? (await regional.setLabels({ ...ref, region: REGION, regionSetLabelsRequestResource: labels }))[0]
            : (await global.setLabels({ ...ref, globalSetLabelsRequestResource: labels }))[0];
        await wait(started);
        const [after] = await client().get({ ...at, securityPolicy: 'armor' });
        assert.deepEqual(after.labels, { team: 'edge' });
      });
    });
  }

  it('aggregatedList shows the global and the regional policy', async () => {
    const policies = new SecurityPoliciesClient(options);
    const found: [string, string][] = [];
    for await (const [scope, list] of policies.aggregatedListAsync({ project: PROJECT })) {
      for (const policy of list.securityPolicies ?? []) found.push([scope, String(policy.type)]);
    }
    assert.deepEqual(found, [
      ['global', 'CLOUD_ARMOR'],
      [`regions/${REGION}`, 'CLOUD_ARMOR'],
    ]);
  });
});
