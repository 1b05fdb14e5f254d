import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { seededIds } from '../../src/lib/ids.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'e2e-policy-roundtrip';
const POLICIES = 50;
/** UPDATED is how many of them gcloud updates: each run of gcloud costs seconds. */
const UPDATED = 6;

/**
 * gcloud beyond the single-rule commands: typed policies with the real type names, policy-level
 * `update` (GET, then PATCH with the fingerprint gcloud re-encodes URL-safe), and the documented
 * export → edit → import round trip that replaces a policy's rules at once.
 */
describe('gcloud compute security-policies: types, update, export and import', () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;

  before(async () => {
    server = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      operations: 'instant',
      adminToken: TOKEN,
      logLevel: 'silent',
      ids: seededIds('gcloud-roundtrip'),
    });
    gcloud = new Gcloud(server.url, TOKEN);
  });
  after(async () => {
    await server.close();
  });

  const describePolicy = async (...where: string[]): Promise<Record<string, unknown>> => {
    const result = await gcloud.run('compute', 'security-policies', 'describe', ...where, '--format=json');
    assert.equal(result.code, 0, result.stderr);
    // gcloud's json format prints a describe result as a one-element list.
    const [policy] = JSON.parse(result.stdout) as Record<string, unknown>[];
    return policy!;
  };

  it('create --type=CLOUD_ARMOR makes a global and a regional policy of that type', async () => {
    const global = await gcloud.run('compute', 'security-policies', 'create', 'web', '--type=CLOUD_ARMOR', '--description=front door');
    assert.equal(global.code, 0, global.stderr);
    assert.match(global.stderr, new RegExp(`Created \\[${server.url}/compute/v1/projects/p/global/securityPolicies/web\\]\\.`));
    const regional = await gcloud.run('compute', 'security-policies', 'create', 'api', '--type=CLOUD_ARMOR', '--region=us-central1');
    assert.equal(regional.code, 0, regional.stderr);
    assert.match(regional.stderr, new RegExp(`Created \\[${server.url}/compute/v1/projects/p/regions/us-central1/securityPolicies/api\\]\\.`));
    assert.equal((await describePolicy('web')).type, 'CLOUD_ARMOR');
    assert.equal((await describePolicy('api', '--region=us-central1')).type, 'CLOUD_ARMOR');
    const edge = await gcloud.run('compute', 'security-policies', 'create', 'cdn', '--type=CLOUD_ARMOR_EDGE');
    assert.equal(edge.code, 0, edge.stderr);
    assert.equal((await describePolicy('cdn')).type, 'CLOUD_ARMOR_EDGE');
  });

  it('a regional edge policy is refused in the real words', async () => {
    const result = await gcloud.run('compute', 'security-policies', 'create', 'bad', '--type=CLOUD_ARMOR_EDGE', '--region=us-central1');
    assert.equal(result.code, 1);
    assert.ok(
      result.stderr.includes(
        "Invalid value for field 'resource.type': 'CLOUD_ARMOR_EDGE'. Regional security policies must be of type CLOUD_ARMOR, CLOUD_ARMOR_NETWORK or CLOUD_ARMOR_INTERNAL_SERVICE.",
      ),
      result.stderr,
    );
  });

  it(`update --description succeeds whatever the fingerprint's alphabet (${UPDATED} of ${POLICIES} policies, both kinds among them)`, async () => {
    // Created over HTTP to keep the test to the command under test; gcloud does the updates, on
    // fingerprints with and without the characters base64 and its URL-safe form spell apart.
    const standardOnly: string[] = [];
    const plain: string[] = [];
    for (let i = 0; i < POLICIES; i++) {
      const response = await fetch(`${server.url}/compute/v1/projects/p/global/securityPolicies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bulk-${i}` }),
      });
      assert.equal(response.status, 200);
      const policy = (await (
        await fetch(`${server.url}/compute/v1/projects/p/global/securityPolicies/bulk-${i}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as { fingerprint: string };
      (/[+/]/.test(policy.fingerprint) ? standardOnly : plain).push(`bulk-${i}`);
    }
    // The case that used to fail (gcloud sends + and / back as - and _) and the plain one, each a few times.
    const chosen = [...standardOnly.slice(0, UPDATED - 2), ...plain.slice(0, 2)];
    assert.ok(standardOnly.length >= UPDATED - 2 && plain.length >= 2, `fingerprints: ${standardOnly.length} with + or /, ${plain.length} without`);
    const failures: string[] = [];
    for (const name of chosen) {
      const result = await gcloud.run('compute', 'security-policies', 'update', name, `--description=updated ${name}`);
      if (result.code !== 0) failures.push(`${name}: ${result.stderr}`);
    }
    assert.deepEqual(failures, []);
    for (const name of chosen) {
      const stored = await fetch(`${server.url}/compute/v1/projects/p/global/securityPolicies/${name}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(((await stored.json()) as { description?: string }).description, `updated ${name}`);
    }
  });

  for (const [label, where] of [
    ['global', []],
    ['regional', ['--region=us-central1']],
  ] as const) {
    it(`${label}: export then import unchanged works and keeps the policy`, async () => {
      const name = label === 'global' ? 'web' : 'api';
      const add = await gcloud.run(
        'compute',
        'security-policies',
        'rules',
        'create',
        '1000',
        `--security-policy=${name}`,
        ...where,
        '--action=allow',
        "--expression=request.path.startsWith('/public')",
      );
      assert.equal(add.code, 0, add.stderr);
      const file = join(gcloud.configDir, `${name}.yaml`);
      const exported = await gcloud.run('compute', 'security-policies', 'export', name, ...where, `--file-name=${file}`);
      assert.equal(exported.code, 0, exported.stderr);
      const before = await describePolicy(name, ...where);
      const imported = await gcloud.run('compute', 'security-policies', 'import', name, ...where, `--file-name=${file}`);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stderr, new RegExp(`Updated \\[${name}\\] with config from \\[${file.replaceAll('/', '\\/')}\\]\\.`));
      const after = await describePolicy(name, ...where);
      assert.deepEqual(after.rules, before.rules);
      assert.equal(after.type, 'CLOUD_ARMOR');
      assert.notEqual(after.fingerprint, before.fingerprint);
      // The file's fingerprint is now stale: importing it again is refused, as the real service does.
      const stale = await gcloud.run('compute', 'security-policies', 'import', name, ...where, `--file-name=${file}`);
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /Invalid fingerprint\./);
    });

    it(`${label}: export, edit the rules, import replaces them at once`, async () => {
      const name = label === 'global' ? 'web' : 'api';
      const file = join(gcloud.configDir, `${name}-edited.yaml`);
      const exported = await gcloud.run('compute', 'security-policies', 'export', name, ...where, `--file-name=${file}`);
      assert.equal(exported.code, 0, exported.stderr);
      const policy = parseYaml(readFileSync(file, 'utf8')) as { rules: Record<string, unknown>[] };
      const rule = policy.rules.find((candidate) => candidate['priority'] === 1000)!;
      rule['action'] = 'deny(403)';
      rule['description'] = 'edited';
      policy.rules.push({
        action: 'allow',
        description: 'office',
        match: { config: { srcIpRanges: ['10.0.0.0/8'] }, versionedExpr: 'SRC_IPS_V1' },
        preview: false,
        priority: 500,
      });
      writeFileSync(file, stringifyYaml(policy));
      const imported = await gcloud.run('compute', 'security-policies', 'import', name, ...where, `--file-name=${file}`);
      assert.equal(imported.code, 0, imported.stderr);
      const after = await describePolicy(name, ...where);
      assert.deepEqual(
        (after.rules as Record<string, unknown>[]).map((r) => [r['priority'], r['action'], r['description']]),
        [
          [500, 'allow', 'office'],
          [1000, 'deny(403)', 'edited'],
          [2147483647, 'allow', 'default rule'],
        ],
      );
      // A bad edit is refused whole and changes nothing.
      const again = join(gcloud.configDir, `${name}-bad.yaml`);
      assert.equal((await gcloud.run('compute', 'security-policies', 'export', name, ...where, `--file-name=${again}`)).code, 0);
      const bad = parseYaml(readFileSync(again, 'utf8')) as { rules: Record<string, unknown>[] };
      bad.rules[0]!['match'] = { expr: { expression: "evaluatePreconfiguredExpr('no-such-set')" } };
      writeFileSync(again, stringifyYaml(bad));
      const refused = await gcloud.run('compute', 'security-policies', 'import', name, ...where, `--file-name=${again}`);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Error parsing Cloud Armor rule matcher expression: no-such-set isn't a valid preconfigured expression set\./);
      assert.deepEqual((await describePolicy(name, ...where)).rules, after.rules);
    });
  }
});
