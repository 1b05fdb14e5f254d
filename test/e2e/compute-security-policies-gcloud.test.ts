import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { skipUnless } from '../harness/clients.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'e2e-security-policies';

describe('gcloud compute security-policies against fogbank (realistic operations)', { skip: skipUnless('gcloud') }, () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;
  let policyUrl: string;
  const R = ['--security-policy=pol', '--region=us-central1'];

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    gcloud = new Gcloud(server.url, TOKEN);
    policyUrl = `${server.url}/compute/v1/projects/p/regions/us-central1/securityPolicies/pol`;
  });
  after(async () => {
    gcloud.dispose();
    await server.close();
  });

  it('create makes a regional policy with the default rule', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'create', 'pol', '--region=us-central1', '--description=edge rules');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`Created \\[${policyUrl}\\]\\.`));
  });

  it('rules create adds a rule with an expression', async () => {
    const result = await gcloud.run(
      'compute',
      'security-policies',
      'rules',
      'create',
      '1000',
      ...R,
      '--action=allow',
      "--expression=inIpRange(origin.ip, '1.2.3.0/24')",
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`Updated \\[${policyUrl}\\]\\.`));
  });

  it('rules update --action=deny-403 changes the action', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'rules', 'update', '1000', ...R, '--action=deny-403');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`Updated \\[${policyUrl}\\]\\.`));
  });

  it('rules update --src-ip-ranges replaces the expression with source ranges', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'rules', 'update', '1000', ...R, '--src-ip-ranges=1.2.3.4/32,5.6.7.0/24');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`Updated \\[${policyUrl}\\]\\.`));
  });

  it('rules describe shows the rule as both updates left it', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'rules', 'describe', '1000', ...R, '--format=yaml');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(parseYaml(result.stdout), {
      action: 'deny(403)',
      description: '',
      kind: 'compute#securityPolicyRule',
      match: { config: { srcIpRanges: ['1.2.3.4/32', '5.6.7.0/24'] }, versionedExpr: 'SRC_IPS_V1' },
      preview: false,
      priority: 1000,
    });
  });

  it('a rejected update shows fogbank’s message and changes nothing', async () => {
    const before = await gcloud.run('compute', 'security-policies', 'describe', 'pol', '--region=us-central1', '--format=value(fingerprint)');
    const result = await gcloud.run(
      'compute',
      'security-policies',
      'rules',
      'update',
      '1000',
      ...R,
      "--expression=evaluatePreconfiguredExpr('sourceiplist-fastly')",
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /ERROR: \(gcloud\.compute\.security-policies\.rules\.update\) Could not fetch resource:/);
    assert.ok(
      result.stderr.includes(
        `Invalid value for field 'resource.match.expr': '{ "expression": "evaluatePreconfiguredExpr(\\u0027sourceiplist-fastly\\u0027)"}'. Error parsing Cloud Armor rule matcher expression: sourceiplist-fastly isn't a valid preconfigured expression set.`,
      ),
      result.stderr,
    );
    const afterRejection = await gcloud.run('compute', 'security-policies', 'describe', 'pol', '--region=us-central1', '--format=value(fingerprint)');
    assert.equal(afterRejection.stdout, before.stdout);
  });

  it('an update of a priority without a rule shows the real message', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'rules', 'update', '2000', ...R, '--action=deny-404');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Invalid value for field 'priority': '2000'\. pol does not contain a rule at priority 2000\./);
  });

  it('rules delete removes the rule and gcloud reads the policy back', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'rules', 'delete', '1000', ...R);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`Updated \\[${policyUrl}\\]\\.`));
  });

  it('describe and list show the policy with only its default rule', async () => {
    const described = await gcloud.run('compute', 'security-policies', 'describe', 'pol', '--region=us-central1', '--format=yaml');
    assert.equal(described.code, 0, described.stderr);
    const policy = parseYaml(described.stdout) as Record<string, unknown>;
    assert.equal(policy['description'], 'edge rules');
    assert.equal(policy['type'], 'CLOUD_ARMOR');
    // gcloud re-encodes bytes fields in the URL-safe alphabet.
    assert.match(policy['fingerprint'] as string, /^[A-Za-z0-9+/_-]{11}=$/);
    assert.deepEqual(policy['rules'], [
      {
        action: 'allow',
        description: 'default rule',
        kind: 'compute#securityPolicyRule',
        match: { config: { srcIpRanges: ['*'] }, versionedExpr: 'SRC_IPS_V1' },
        preview: false,
        priority: 2147483647,
      },
    ]);
    const listed = await gcloud.run('compute', 'security-policies', 'list', '--regions=us-central1', '--format=value(name)');
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.trim(), 'pol');
  });
});
