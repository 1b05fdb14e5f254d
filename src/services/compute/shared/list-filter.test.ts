import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';

/**
 * The compute list `filter` language through the list methods: comparisons (=, !=, :, :*, <, >,
 * <=, >=), the legacy eq/ne regular expressions, AND/OR/NOT, juxtaposition, parentheses,
 * wildcards, repeated fields, and the exact 400 for every syntax error.
 */

const ADMIN = { authorization: 'Bearer admin' };
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const CREATED = ['2024-12-31T16:00:00.000-08:00', '2024-12-31T16:00:01.000-08:00', '2024-12-31T16:00:02.000-08:00', '2024-12-31T16:00:03.000-08:00'];

let srv: RunningFogbank;
const clock = new ManualClock(Date.UTC(2025, 0, 1));

/** itemNames lists the `name` of each item of a list's `items`. */
function itemNames(items: unknown): string[] {
  return (items as { name: string }[]).map((t) => t.name);
}

/** scopes is an aggregated list's `items`: per scope, its templates or the warning that it has none. */
function scopes(body: Record<string, unknown>): Record<string, { instanceTemplates?: unknown; warning?: { code: string } }> {
  return body['items'] as Record<string, { instanceTemplates?: unknown; warning?: { code: string } }>;
}

async function call(url: string, method: 'GET' | 'POST' = 'GET', payload?: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await srv.app.inject({ method, url, headers: ADMIN, ...(payload === undefined ? {} : { payload }) });
  return { status: response.statusCode, body: response.json() };
}

const disk = (diskSizeGb: string, boot = false): object => ({
  boot,
  initializeParams: boot ? { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb } : { diskSizeGb },
});

before(async () => {
  srv = await startFogbank({
    host: '127.0.0.1',
    port: 0,
    store: 'memory',
    operations: 'instant',
    adminToken: 'admin',
    logLevel: 'silent',
    clock,
    ids: seededIds('list-filter'),
  });
  const templates = [
    {
      name: 'alpha',
      description: 'Front end',
      properties: {
        machineType: 'e2-small',
        labels: { env: 'prod', team: 'web' },
        tags: { items: ['http-server', 'https-server'] },
        disks: [disk('20', true)],
        canIpForward: true,
      },
    },
    {
      name: 'beta',
      description: 'Batch',
      properties: { machineType: 'e2-medium', labels: { env: 'dev' }, tags: { items: ['ssh'] }, disks: [disk('50', true)], scheduling: { preemptible: true } },
    },
    { name: 'gamma', properties: { machineType: 'n2-standard-4', disks: [disk('10', true), disk('200')] } },
    { name: 'delta-1', description: 'Back end', properties: { machineType: 'e2-small', labels: { env: 'prod' } } },
  ];
  for (const body of templates) {
    const reply = await call(TEMPLATES, 'POST', body);
    assert.equal(reply.body['status'], 'DONE', JSON.stringify(reply.body));
    clock.advance(1_000);
  }
  // A regional template, for the aggregated list.
  assert.equal(
    (
      await call('/compute/v1/projects/p/regions/us-east1/instanceTemplates', 'POST', {
        name: 'epsilon',
        properties: { machineType: 'e2-small', labels: { env: 'prod' } },
      })
    ).body['status'],
    'DONE',
  );
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
    // repeated fields: unknown element may match
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
    ['name eq -.*', []],
    ['NOT NOT name = alpha', ['alpha']],
    ['((name = alpha))', ['alpha']],
    ['name = alpha AND NOT name = alpha', []],
    // unknown fields match nothing with =, everything with !=
    ['nosuchfield = x', []],
    ['nosuchfield != x', ['alpha', 'beta', 'delta-1', 'gamma']],
    // RE2, not JavaScript: \A and \z anchors, (?i), POSIX classes; `^` mid-pattern is start of text.
    ['name eq "\\Aal\\w+\\z"', ['alpha']],
    ['name eq "(?i)ALPHA"', ['alpha']],
    ['name eq "[[:alpha:]]+"', ['alpha', 'beta', 'gamma']],
    ['name eq ".*(^b).*"', ['beta']],
    // Backslash escapes inside quoted strings stay escapes of the pattern (gcloud's rewrite).
    ['description eq ".*\\bend\\b.*"', ['alpha', 'delta-1']],
    ['description eq ".*\\bEnd\\b.*"', []],
    ['description eq ".*\\bBack\\ end\\b.*"', ['delta-1']],
    ['name eq ".*\\bdelta\\-1\\b.*"', ['delta-1']],
    ['name eq "delta\\.1"', []],
    ["name eq 'al\\'pha'", []],
    ['description eq "Front\\x20end"', ['alpha']],
    // ...and the literal operators read them as escaped characters.
    ['description = "Front\\ end"', ['alpha']],
    ['description = "Front\\"end"', []],
    // The forms gcloud 528 sends for --filter (api_lib/compute/filter_rewrite.py).
    ['name eq ".*\\balpha\\b.*"', ['alpha']],
    ['name ne ".*\\balpha\\b.*"', ['beta', 'delta-1', 'gamma']],
    ['name eq ".*(^a).*"', ['alpha']],
    ['name eq ".*(a$).*"', ['alpha', 'beta', 'gamma']],
    ['name ne ".*(a$).*"', ['delta-1']],
    ['name eq ".*\\bal.*"', ['alpha']],
    ['(name eq ".*(^[ab]).*")(name ne ".*(^b).*")', ['alpha']],
    ['((name eq ".*(a).*")(properties.machineType eq ".*\\be2\\-small\\b.*"))(description eq ".*\\bFront\\b.*")', ['alpha']],
    ['properties.canIpForward eq true', ['alpha']],
    ['properties.disks.initializeParams.diskSizeGb eq 200', ['gamma']],
    ['name eq ".*\\b\\"\\b.*"', []],
    // gcloud sends timestamps bare, normalised to UTC: the same instant matches whatever its offset.
    ['creationTimestamp eq 2025-01-01T00:00:01.000Z', ['beta']],
    ['creationTimestamp eq 2025-01-01T01:00:01+01:00', ['beta']],
    ['(creationTimestamp ne 2025-01-01T00:00:01.000Z)(name eq ".*a")', ['alpha', 'gamma']],
    ['creationTimestamp eq 2025-01-01T00:00:01.000-00:00', ['beta']],
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
    assert.deepEqual(
      items['global']?.instanceTemplates?.map((t) => t.name),
      ['alpha', 'delta-1'],
    );
    assert.deepEqual(
      items['regions/us-east1']?.instanceTemplates?.map((t) => t.name),
      ['epsilon'],
    );
  });

  test('operations filter on their own fields', async () => {
    const all = (await call('/compute/v1/projects/p/global/operations')).body['items'] as { name: string; targetLink: string }[];
    assert.equal(all.length, 4);
    const byTarget = await names('targetLink = *alpha', '/compute/v1/projects/p/global/operations');
    assert.deepEqual(
      byTarget,
      all.filter((op) => op.targetLink.endsWith('/alpha')).map((op) => op.name),
    );
    assert.deepEqual(await names('status != DONE', '/compute/v1/projects/p/global/operations'), []);
    assert.deepEqual(
      await names('operationType = insert AND status = DONE', '/compute/v1/projects/p/global/operations'),
      all.map((op) => op.name),
    );
  });

  test('patterns that backtrack in JavaScript run on RE2 (issue 13 item 2: these froze the process)', async () => {
    const images = '/compute/v1/projects/debian-cloud/global/images';
    const all = await names('', images);
    assert.ok(all.length > 0);
    assert.deepEqual(await names('description eq "(.|.)*Q"', images), []);
    assert.deepEqual(await names('description = "****** *Q"', images), []);
    assert.deepEqual(await names('description ne "(.|.)*Q"', images), all);
    assert.deepEqual(
      await names('description eq "(.|.)*bullseye(.|.)*"', images),
      all.filter((name) => name.includes('bullseye')),
    );
  });

  test('name-order pages resume after the last key, filter and all, on plain and aggregated lists', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const reply = await call(`${TEMPLATES}?filter=${encodeURIComponent('name != gamma')}&maxResults=1${token === undefined ? '' : `&pageToken=${token}`}`);
      assert.equal(reply.status, 200);
      seen.push(...itemNames(reply.body['items']));
      token = reply.body['nextPageToken'] as string | undefined;
    } while (token !== undefined);
    assert.deepEqual(seen, ['alpha', 'beta', 'delta-1']);
    const first = await call('/compute/v1/projects/p/aggregated/instanceTemplates?maxResults=4');
    assert.deepEqual(itemNames(scopes(first.body)['global']?.instanceTemplates), ['alpha', 'beta', 'delta-1', 'gamma']);
    const second = await call(`/compute/v1/projects/p/aggregated/instanceTemplates?maxResults=4&pageToken=${first.body['nextPageToken']}`);
    assert.deepEqual(itemNames(scopes(second.body)['regions/us-east1']?.instanceTemplates), ['epsilon']);
    assert.equal(scopes(second.body)['global']?.warning?.code, 'NO_RESULTS_ON_PAGE');
    assert.equal(second.body['nextPageToken'], undefined);
    const bad = await call(`${TEMPLATES}?pageToken=${Buffer.from('x:1').toString('base64url')}`);
    assert.equal(bad.status, 400);
  });

  test('a page reads only what it returns (plus one), not the whole collection', async () => {
    const read: number[] = [];
    const store = srv.store;
    const list = store.list.bind(store);
    (store as { list: typeof store.list }).list = async (kind, options) => {
      const records = await list(kind, options);
      if (kind === 'compute.instanceTemplates') read.push(records.length);
      return records as never;
    };
    try {
      const reply = await call(`${TEMPLATES}?maxResults=1`);
      assert.deepEqual(itemNames(reply.body['items']), ['alpha']);
      assert.deepEqual(read, [2]);
    } finally {
      delete (store as { list?: unknown }).list;
    }
  });

  test('filter, page size and order combine', async () => {
    const first = await call(`${TEMPLATES}?filter=${encodeURIComponent('name != gamma')}&maxResults=2&orderBy=${encodeURIComponent('creationTimestamp desc')}`);
    assert.deepEqual(itemNames(first.body['items']), ['delta-1', 'beta']);
    assert.equal(typeof first.body['nextPageToken'], 'string');
    const second = await call(
      `${TEMPLATES}?filter=${encodeURIComponent('name != gamma')}&maxResults=2&orderBy=${encodeURIComponent('creationTimestamp desc')}&pageToken=${first.body['nextPageToken']}`,
    );
    assert.deepEqual(itemNames(second.body['items']), ['alpha']);
    assert.equal(second.body['nextPageToken'], undefined);
    const byName = await call(`${TEMPLATES}?orderBy=name`);
    assert.deepEqual(itemNames(byName.body['items']), ['alpha', 'beta', 'delta-1', 'gamma']);
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
    ['name eq "("', "invalid regular expression '(': missing closing ): ("],
    ['name eq "a(?!b)"', "invalid regular expression 'a(?!b)': invalid or unsupported Perl syntax: (?!"],
    ['name eq "a**"', "invalid regular expression 'a**': invalid nested repetition operator: **"],
    ['name eq "\\C"', "invalid regular expression '\\C': invalid escape sequence: \\C"],
    [`${'('.repeat(101)}name = alpha${')'.repeat(101)}`, 'nesting deeper than 100 levels'],
    [`${'NOT '.repeat(101)}name = alpha`, 'nesting deeper than 100 levels'],
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
