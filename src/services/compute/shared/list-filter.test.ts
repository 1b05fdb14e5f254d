import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../../test/harness/server.ts';
import { ManualClock } from '../../../core/clock.ts';
import { seededIds } from '../../../core/ids.ts';

/**
 * The compute list `filter` language through the list methods: comparisons (=, !=, :, :*, <, >,
 * <=, >=), the legacy eq/ne regular expressions, AND/OR/NOT, juxtaposition, parentheses,
 * wildcards, repeated fields, and the exact 400 for every syntax error.
 */

const ADMIN = { authorization: 'Bearer admin' };
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const CREATED = ['2025-01-01T00:00:00.000-00:00', '2025-01-01T00:00:01.000-00:00', '2025-01-01T00:00:02.000-00:00', '2025-01-01T00:00:03.000-00:00'];

let srv: RunningFogbank;
const clock = new ManualClock(Date.UTC(2025, 0, 1));

async function call(url: string, method: 'GET' | 'POST' = 'GET', payload?: object): Promise<{ status: number; body: Record<string, any> }> {
  const response = await srv.app.inject({ method, url, headers: ADMIN, ...(payload === undefined ? {} : { payload }) });
  return { status: response.statusCode, body: response.json() };
}

const disk = (diskSizeGb: string, boot = false): object => ({ boot, initializeParams: boot ? { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb } : { diskSizeGb } });

before(async () => {
  srv = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: 'admin', logLevel: 'silent', clock, ids: seededIds('list-filter') });
  const templates = [
    { name: 'alpha', description: 'Front end', properties: { machineType: 'e2-small', labels: { env: 'prod', team: 'web' }, tags: { items: ['http-server', 'https-server'] }, disks: [disk('20', true)], canIpForward: true } },
    { name: 'beta', description: 'Batch', properties: { machineType: 'e2-medium', labels: { env: 'dev' }, tags: { items: ['ssh'] }, disks: [disk('50', true)], scheduling: { preemptible: true } } },
    { name: 'gamma', properties: { machineType: 'n2-standard-4', disks: [disk('10', true), disk('200')] } },
    { name: 'delta-1', description: 'Back end', properties: { machineType: 'e2-small', labels: { env: 'prod' } } },
  ];
  for (const body of templates) {
    const reply = await call(TEMPLATES, 'POST', body);
    assert.equal(reply.body['status'], 'DONE', JSON.stringify(reply.body));
    clock.advance(1_000);
  }
  // A regional template, for the aggregated list.
  assert.equal((await call('/compute/v1/projects/p/regions/us-east1/instanceTemplates', 'POST', { name: 'epsilon', properties: { machineType: 'e2-small', labels: { env: 'prod' } } })).body['status'], 'DONE');
});
after(async () => {
  await srv.close();
});

async function names(filter: string, base = TEMPLATES, extra = ''): Promise<string[]> {
  const reply = await call(`${base}?filter=${encodeURIComponent(filter)}${extra}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return ((reply.body['items'] ?? []) as { name: string }[]).map((item) => item.name);
}

describe('filter matches', () => {
  const cases: [string, string[]][] = [
    ['', ['alpha', 'beta', 'delta-1', 'gamma']],
    ['   ', ['alpha', 'beta', 'delta-1', 'gamma']],
    // = and != on plain fields, bare and quoted values
    ['name = alpha', ['alpha']],
    ['name=alpha', ['alpha']],
    ['name = "alpha"', ['alpha']],
    ["name = 'alpha'", ['alpha']],
    ['name = Alpha', []],
    ['name = alph', []],
    ['name != alpha', ['beta', 'delta-1', 'gamma']],
    ['description = "Front end"', ['alpha']],
    ['description = ""', ['gamma']],
    ['properties.machineType = e2-small', ['alpha', 'delta-1']],
    ['properties.canIpForward = true', ['alpha']],
    ['properties.scheduling.preemptible = true', ['beta']],
    ['properties.scheduling.preemptible = false', ['alpha', 'delta-1', 'gamma']],
    // wildcards
    ['name = a*', ['alpha']],
    ['name = *ta*', ['beta', 'delta-1']],
    ['name = *a', ['alpha', 'beta', 'gamma']],
    ['description = "* end"', ['alpha', 'delta-1']],
    ['name != *a', ['delta-1']],
    ['name = "a.*"', []],
    // legacy eq / ne: full-match regular expressions
    ["name eq 'al.*'", ['alpha']],
    ['name eq al', []],
    ['name eq "(alpha|beta)"', ['alpha', 'beta']],
    ["name ne '.*a'", ['delta-1']],
    ['properties.machineType eq e2-.*', ['alpha', 'beta', 'delta-1']],
    ['properties.machineType ne e2-.*', ['gamma']],
    // maps, presence and has
    ['properties.labels.env = prod', ['alpha', 'delta-1']],
    ['properties.labels.env != prod', ['beta', 'gamma']],
    ['properties.labels.team = web', ['alpha']],
    ['properties.labels:*', ['alpha', 'beta', 'delta-1']],
    ['properties.labels.team:*', ['alpha']],
    ['description:*', ['alpha', 'beta', 'delta-1', 'gamma']],
    ['properties.tags:*', ['alpha', 'beta']],
    ['properties.tags.items:http', ['alpha']],
    ['properties.tags.items:SSH', ['beta']],
    ['description:END', ['alpha', 'delta-1']],
    // repeated fields: any element may match
    ['properties.tags.items = https-server', ['alpha']],
    ['properties.disks.initializeParams.diskSizeGb = 200', ['gamma']],
    ['properties.disks.initializeParams.diskSizeGb = 10', ['gamma']],
    ['properties.disks.boot = false', ['gamma']],
    ['properties.disks.deviceName = persistent-disk-1', ['gamma']],
    // ordering comparisons: numeric when both sides are numbers, text otherwise
    ['properties.disks.initializeParams.diskSizeGb > 40', ['beta', 'gamma']],
    ['properties.disks.initializeParams.diskSizeGb < 15', ['gamma']],
    ['properties.disks.initializeParams.diskSizeGb >= 50', ['beta', 'gamma']],
    ['properties.disks.initializeParams.diskSizeGb <= 20', ['alpha', 'gamma']],
    [`creationTimestamp > "${CREATED[1]}"`, ['delta-1', 'gamma']],
    [`creationTimestamp >= "${CREATED[1]}"`, ['beta', 'delta-1', 'gamma']],
    [`creationTimestamp < "${CREATED[1]}"`, ['alpha']],
    ['name > c', ['delta-1', 'gamma']],
    // AND, OR, NOT, juxtaposition, parentheses
    ['properties.machineType = e2-small AND properties.labels.env = prod', ['alpha', 'delta-1']],
    ['(name = alpha) OR (name = beta)', ['alpha', 'beta']],
    ['name = alpha OR name = beta', ['alpha', 'beta']],
    ['name = alpha OR name = beta AND properties.labels.env = prod', ['alpha']],
    ['(name = alpha OR name = beta) AND properties.labels.env = prod', ['alpha']],
    ['(properties.machineType = e2-small) (name = delta-1)', ['delta-1']],
    ['properties.machineType = e2-small name != alpha', ['delta-1']],
    ['NOT name = alpha', ['beta', 'delta-1', 'gamma']],
    ['NOT (name = alpha OR name = beta)', ['delta-1', 'gamma']],
    ['-properties.labels:*', ['gamma']],
    ['NOT properties.labels:*', ['gamma']],
    ['-name = alpha', ['beta', 'delta-1', 'gamma']],
    ['properties.labels.env = prod -properties.labels.team:*', ['delta-1']],
    ['name = -alpha', []],
    ['properties.disks.initializeParams.diskSizeGb > -1', ['alpha', 'beta', 'gamma']],
    ["name eq -.*", []],
    ['NOT NOT name = alpha', ['alpha']],
    ['((name = alpha))', ['alpha']],
    ['name = alpha AND NOT name = alpha', []],
    // unknown fields match nothing with =, everything with !=
    ['nosuchfield = x', []],
    ['nosuchfield != x', ['alpha', 'beta', 'delta-1', 'gamma']],
  ];
  for (const [filter, expected] of cases) {
    test(filter === '' ? '(empty filter)' : filter, async () => {
      assert.deepEqual(await names(filter), expected);
    });
  }
});

describe('filter on other lists', () => {
  test('aggregated instanceTemplates filters per item across scopes', async () => {
    const reply = await call(`/compute/v1/projects/p/aggregated/instanceTemplates?filter=${encodeURIComponent('properties.labels.env = prod')}`);
    assert.equal(reply.status, 200);
    const items = reply.body['items'] as Record<string, { instanceTemplates?: { name: string }[] }>;
    assert.deepEqual(items['global']?.instanceTemplates?.map((t) => t.name), ['alpha', 'delta-1']);
    assert.deepEqual(items['regions/us-east1']?.instanceTemplates?.map((t) => t.name), ['epsilon']);
  });

  test('operations filter on their own fields', async () => {
    const all = (await call('/compute/v1/projects/p/global/operations')).body['items'] as { name: string; targetLink: string }[];
    assert.equal(all.length, 4);
    const byTarget = await names('targetLink = *alpha', '/compute/v1/projects/p/global/operations');
    assert.deepEqual(byTarget, all.filter((op) => op.targetLink.endsWith('/alpha')).map((op) => op.name));
    assert.deepEqual(await names('status != DONE', '/compute/v1/projects/p/global/operations'), []);
    assert.deepEqual(await names('operationType = insert AND status = DONE', '/compute/v1/projects/p/global/operations'), all.map((op) => op.name));
  });

  test('filter, page size and order combine', async () => {
    const first = await call(`${TEMPLATES}?filter=${encodeURIComponent('name != gamma')}&maxResults=2&orderBy=${encodeURIComponent('creationTimestamp desc')}`);
    assert.deepEqual(first.body['items'].map((t: { name: string }) => t.name), ['delta-1', 'beta']);
    assert.equal(typeof first.body['nextPageToken'], 'string');
    const second = await call(`${TEMPLATES}?filter=${encodeURIComponent('name != gamma')}&maxResults=2&orderBy=${encodeURIComponent('creationTimestamp desc')}&pageToken=${first.body['nextPageToken']}`);
    assert.deepEqual(second.body['items'].map((t: { name: string }) => t.name), ['alpha']);
    assert.equal(second.body['nextPageToken'], undefined);
    const byName = await call(`${TEMPLATES}?orderBy=name`);
    assert.deepEqual(byName.body['items'].map((t: { name: string }) => t.name), ['alpha', 'beta', 'delta-1', 'gamma']);
  });
});

describe('filter syntax errors', () => {
  const cases: [string, string][] = [
    ['name =', "expected a value after '='"],
    ['name', "expected an operator after 'name'"],
    ['= alpha', 'expected a field name'],
    ['(name = alpha', "missing ')'"],
    ['name = alpha)', 'unexpected input after the expression'],
    ['name = "alpha', 'unterminated string'],
    ['name ~ alpha', "unknown operator '~'"],
    ['name = alpha OR', 'expression ends too early'],
    ['NOT', 'expression ends too early'],
    ['name = (alpha)', "expected a value after '='"],
    ['name eq "("', "invalid regular expression '('"],
    ['name = = alpha', "expected a value after '='"],
    ['()', 'expected a field name'],
  ];
  for (const [filter, reason] of cases) {
    test(filter, async () => {
      const before = await names('');
      const reply = await call(`${TEMPLATES}?filter=${encodeURIComponent(filter)}`);
      const message = `Invalid value for field 'filter': '${filter}'. Invalid list filter expression: ${reason}.`;
      assert.equal(reply.status, 400);
      assert.deepEqual(reply.body, { error: { code: 400, message, errors: [{ message, domain: 'global', reason: 'invalid' }] } });
      assert.deepEqual(await names(''), before);
    });
  }
});
