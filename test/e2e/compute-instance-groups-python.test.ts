import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { locateClient, missingClientMessage } from '../harness/clients.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

/**
 * Debian's google-api-python-client (python3-googleapi 1.7.12, /usr/bin/python3) through issue
 * 43's flow, its client built from the Discovery document fogbank serves: instance templates, an
 * instance from one, zonal and regional managed instance groups coming up and updated in waves on
 * fogbank's clock (frozen, moved by the script through the admin API), templates in use, and
 * global and regional backend services with security policies.
 */

const SCRIPT = fileURLToPath(new URL('python/compute_instance_groups.py', import.meta.url));
const PYTHON = locateClient('python3-googleapi');
const TOKEN = 'python-groups-admin';

let server: RunningFogbank;
let work: string;

before(async () => {
  assert.ok(PYTHON !== undefined, missingClientMessage('python3-googleapi'));
  work = mkdtempSync(join(tmpdir(), 'fogbank-python-groups-'));
  server = await startFogbank({ ephemeral: true, operations: 'realistic', adminToken: TOKEN });
});
after(async () => {
  await server?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function python(): Promise<Record<string, unknown>> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: work,
    // Nothing answers on port 9: a request not to loopback fails at once instead of leaving the machine.
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    no_proxy: '127.0.0.1,localhost',
  };
  return new Promise((resolve, reject) => {
    execFile(PYTHON!, [SCRIPT, server.url, TOKEN, 'p'], { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`the script failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

const IN_USE = 'resourceInUseByAnotherResource';

describe('python3-googleapi: instances, managed instance groups and backend services from fogbank’s Discovery document', () => {
  test('the whole flow', async () => {
    const r = await python();
    assert.deepEqual(r['instance'], { statuses: ['PROVISIONING', 'STAGING', 'RUNNING'], machineType: 'e2-small', listed: ['vm1'] });
    assert.equal(r['insertType'], 'compute.instanceGroupManagers.insert');
    assert.deepEqual(r['comingUp'], [
      Array(3).fill(['PROVISIONING', 'CREATING']),
      Array(3).fill(['STAGING', 'CREATING']),
      Array(3).fill(['RUNNING', 'VERIFYING']),
      Array(3).fill(['RUNNING', 'NONE']),
    ]);
    const group = r['group'] as { status: Record<string, unknown>; updatePolicy: Record<string, unknown>; targetSize: number };
    assert.equal(group.targetSize, 3);
    assert.equal(group.status['isStable'], true);
    assert.deepEqual(group.status['versionTarget'], { isReached: true });
    assert.deepEqual(group.updatePolicy['maxSurge'], { fixed: 1, calculated: 1 });
    assert.deepEqual(r['t1InUse'], {
      status: 400,
      reason: IN_USE,
      message:
        "The instance_template resource 'projects/p/global/instanceTemplates/t1' is already being used by 'projects/p/zones/us-central1-a/instanceGroupManagers/mig'",
    });
    const update = r['update'] as Record<string, unknown>;
    assert.equal(update['mostLive'], 4);
    assert.equal(update['leastServing'], 3);
    assert.deepEqual(update['firstWave'], ['CREATING']);
    assert.deepEqual(update['after'], Array(3).fill(['RUNNING', 'NONE', 't2']));
    assert.equal(update['renamed'], true);
    assert.deepEqual((update['status'] as Record<string, unknown>)['versionTarget'], { isReached: true });
    assert.equal((r['t2InUse'] as { reason: string }).reason, IN_USE);
    assert.deepEqual(r['resized'], ['NONE', 'DELETING', 'DELETING']);
    assert.deepEqual(r['aggregated'], ['zones/us-central1-a']);
    assert.deepEqual(r['regional'], {
      zones: ['us-central1-a', 'us-central1-b', 'us-central1-c'],
      actions: ['NONE', 'NONE', 'NONE'],
      maxSurge: { fixed: 3, calculated: 3 },
      maxUnavailable: { fixed: 3, calculated: 3 },
      listed: ['mig'],
      instanceGroup: { size: 3, region: 'us-central1', instances: true },
      applied: Array(3).fill(['RECREATING', 'STOPPING', true]),
    });
    assert.deepEqual(r['instancesLeft'], ['vm1']);
    assert.deepEqual(r['backendService'], { securityPolicy: `${server.url}/compute/v1/projects/p/global/securityPolicies/armor`, listed: ['web'] });
    assert.deepEqual(r['armorInUse'], {
      status: 400,
      reason: IN_USE,
      message: "The security_policy resource 'projects/p/global/securityPolicies/armor' is already being used by 'projects/p/global/backendServices/web'",
    });
    assert.deepEqual(r['regionBackendService'], {
      securityPolicy: `${server.url}/compute/v1/projects/p/regions/us-central1/securityPolicies/regional-armor`,
      region: 'us-central1',
    });
    assert.equal((r['regionalArmorInUse'] as { reason: string }).reason, IN_USE);
  });
});
