// The compute client generated from the official compute.proto, type-checked against a small
// program that uses it, then pointed at a running fogbank: insert an instance template, wait for
// the Operation, read the template back, and see a 404 surface as a typed ApiError; then create a
// regional security policy, add a rule, patch it (with an update mask) and read it back.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { fogbankPlugin } from '../../src/plugin/generators/index.ts';
import { runInMemory } from '../../src/plugin/host/index.ts';
import { startFogbank } from '../../src/testing/fogbank.ts';
import { COMPUTE_PROTO, descriptorSet, googleapisProtos, tempDir, typecheck } from '../harness/protos.ts';

// A user's program, written against the generated types: it must compile under tsc --strict.
const USAGE = `import { GlobalOperationsClient, InstanceTemplatesClient, RegionOperationsClient, RegionSecurityPoliciesClient, type InstanceTemplate, type SecurityPolicyRule } from './compute.fogbank.js';
import { ApiError } from './fogbank-rest.js';

export interface Outcome {
  readonly status: string | undefined;
  readonly template: InstanceTemplate;
  readonly missing: { readonly status: number; readonly message: string };
}

export async function insertAndRead(baseUrl: string, token: string): Promise<Outcome> {
  const options = { baseUrl, headers: { authorization: 'Bearer ' + token } };
  const templates = new InstanceTemplatesClient(options);
  const operation = await templates.insert({
    project: 'plugin-e2e',
    requestId: '8d2f4b8e-3f1a-4c55-9a51-2f7e7c2e9b10',
    instanceTemplateResource: {
      name: 'from-generated-client',
      description: 'made by the protoc-gen-fogbank client',
      properties: {
        machineType: 'e2-small',
        labels: { team: 'plugin' },
        scheduling: { provisioningModel: 'STANDARD' },
      },
    },
  });
  const done = await new GlobalOperationsClient(options).wait({ project: 'plugin-e2e', operation: operation.name ?? '' });
  const template = await templates.get({ project: 'plugin-e2e', instanceTemplate: 'from-generated-client' });
  try {
    await templates.get({ project: 'plugin-e2e', instanceTemplate: 'does-not-exist' });
    throw new Error('expected a 404');
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: done.status, template, missing: { status: err.status, message: err.message } };
  }
}

export async function patchRule(baseUrl: string, token: string): Promise<{ rule: SecurityPolicyRule; rejected: string }> {
  const options = { baseUrl, headers: { authorization: 'Bearer ' + token } };
  const policies = new RegionSecurityPoliciesClient(options);
  const operations = new RegionOperationsClient(options);
  const where = { project: 'plugin-e2e', region: 'us-central1' };
  const settle = async (op: { name?: string }) => operations.wait({ ...where, operation: op.name ?? '' });
  await settle(await policies.insert({ ...where, securityPolicyResource: { name: 'edge' } }));
  await settle(
    await policies.addRule({
      ...where,
      securityPolicy: 'edge',
      securityPolicyRuleResource: { priority: 1000, action: 'allow', match: { expr: { expression: "inIpRange(origin.ip, '10.0.0.0/8')" } } },
    }),
  );
  await settle(
    await policies.patchRule({
      ...where,
      securityPolicy: 'edge',
      priority: 1000,
      updateMask: 'description',
      securityPolicyRuleResource: { priority: 1000, action: 'deny(403)' },
    }),
  );
  let rejected = '';
  try {
    await policies.patchRule({ ...where, securityPolicy: 'edge', priority: 7, securityPolicyRuleResource: { action: 'allow' } });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    rejected = err.message;
  }
  return { rule: await policies.getRule({ ...where, securityPolicy: 'edge', priority: 1000 }), rejected };
}
`;

interface Usage {
  insertAndRead(
    baseUrl: string,
    token: string,
  ): Promise<{
    status: string | undefined;
    template: Record<string, unknown> & { properties?: Record<string, unknown> };
    missing: { status: number; message: string };
  }>;
  patchRule(baseUrl: string, token: string): Promise<{ rule: Record<string, unknown>; rejected: string }>;
}

test('the generated compute client inserts an instance template and patches a security-policy rule in fogbank', async () => {
  const dir = tempDir('compute-client');
  const schema = readFileSync(descriptorSet([COMPUTE_PROTO], dir, [googleapisProtos()]));
  const generated = await runInMemory({ schema, filesToGenerate: [COMPUTE_PROTO], generators: [{ plugin: fogbankPlugin }] });
  assert.equal(generated.exitCode, 0, generated.stderr);
  const codeDir = join(dir, 'gen');
  for (const [name, text] of generated.files) {
    const path = join(codeDir, name.replace('google/cloud/compute/v1/', ''));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  writeFileSync(join(codeDir, 'use-compute.ts'), USAGE);
  const tsc = typecheck(codeDir);
  assert.equal(tsc.stdout.toString() + tsc.stderr, '');

  const server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: 'test-token', logLevel: 'silent' });
  try {
    const usage = (await import(pathToFileURL(join(codeDir, 'use-compute.ts')).href)) as Usage;
    const outcome = await usage.insertAndRead(server.url, 'test-token');
    assert.equal(outcome.status, 'DONE');
    assert.equal(outcome.template['name'], 'from-generated-client');
    assert.equal(outcome.template['kind'], 'compute#instanceTemplate');
    assert.equal(outcome.template['description'], 'made by the protoc-gen-fogbank client');
    assert.equal(outcome.template.properties?.['machineType'], 'e2-small');
    assert.deepEqual(outcome.template.properties?.['labels'], { team: 'plugin' });
    assert.match(String(outcome.template['id']), /^\d+$/);
    assert.equal(outcome.missing.status, 404);
    assert.equal(outcome.missing.message, "The resource 'projects/plugin-e2e/global/instanceTemplates/does-not-exist' was not found");
    const patched = await usage.patchRule(server.url, 'test-token');
    assert.equal(patched.rule['action'], 'deny(403)');
    assert.equal(patched.rule['priority'], 1000);
    assert.deepEqual(patched.rule['match'], { expr: { expression: "inIpRange(origin.ip, '10.0.0.0/8')" } });
    assert.equal(patched.rule['description'], '');
    assert.equal(patched.rejected, "Invalid value for field 'priority': '7'. edge does not contain a rule at priority 7.");
  } finally {
    await server.close();
  }
});
