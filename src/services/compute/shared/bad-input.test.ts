import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';

/**
 * Requests the compute front end must refuse before any handler logic runs: bodies that are not
 * JSON or do not fit the message, oversized bodies, malformed query parameters and unknown
 * routes. Each answer is asserted exactly, and each refusal is shown to change nothing.
 */

const ADMIN = { authorization: 'Bearer admin' };
const JSON_ADMIN = { ...ADMIN, 'content-type': 'application/json' };
const INSERT = '/compute/v1/projects/p/global/instanceTemplates';
const P = 'resource.properties';
const ENUM = 'type.googleapis.com/google.cloud.compute.v1';
const UUID_RULE = 'The request ID must be a valid UUID with the exception that zero UUID is not supported (00000000-0000-0000-0000-000000000000).';

let srv: RunningFogbank;

before(async () => {
  srv = await startFogbank({
    host: '127.0.0.1',
    port: 0,
    store: 'memory',
    operations: 'instant',
    adminToken: 'admin',
    logLevel: 'silent',
    clock: new ManualClock(),
    ids: seededIds('bad-input'),
  });
  // One template and its Operation exist, so "unchanged" is checked against a non-empty state.
  const seeded = await srv.app.inject({ method: 'POST', url: INSERT, headers: ADMIN, payload: { name: 'existing', properties: { machineType: 'e2-small' } } });
  assert.equal(seeded.statusCode, 200);
});
after(async () => {
  await srv.close();
});

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly contentType: string | undefined;
}

async function send(
  method: 'GET' | 'POST' | 'DELETE' | 'PUT',
  url: string,
  payload?: string | object,
  headers: Record<string, string> = ADMIN,
): Promise<Reply> {
  const response = await srv.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: response.statusCode, body: response.json(), contentType: response.headers['content-type'] as string | undefined };
}

async function state(): Promise<unknown> {
  const templates = await send('GET', '/compute/v1/projects/p/aggregated/instanceTemplates');
  const operations = await send('GET', '/compute/v1/projects/p/aggregated/operations');
  return { templates: templates.body['items'], operations: operations.body['items'] };
}

/** assertEnvelope checks the whole compute error body; `status` is the canonical word, when Google adds one. */
function assertEnvelope(reply: Reply, code: number, reason: string, message: string, status?: string): void {
  assert.equal(reply.status, code, JSON.stringify(reply.body));
  assert.equal(reply.contentType, 'application/json; charset=UTF-8');
  assert.deepEqual(reply.body, { error: { code, message, errors: [{ message, domain: 'global', reason }], ...(status === undefined ? {} : { status }) } });
}

/** rejects runs one bad request and proves the state is what it was. */
async function rejects(
  method: 'GET' | 'POST' | 'DELETE' | 'PUT',
  url: string,
  payload: string | object | undefined,
  headers: Record<string, string>,
  code: number,
  reason: string,
  message: string,
  status?: string,
): Promise<void> {
  const before = await state();
  assertEnvelope(await send(method, url, payload, headers), code, reason, message, status);
  assert.deepEqual(await state(), before);
}

const template = (properties: Record<string, unknown>, top: Record<string, unknown> = {}): object => ({
  name: 'fresh',
  properties: { machineType: 'e2-small', ...properties },
  ...top,
});

describe('malformed JSON', () => {
  const cases: [string, string, string][] = [
    // Google's front end names the problem, then shows the line with a caret under the spot.
    ['truncated object', '{"name": ', 'Invalid JSON payload received. Unexpected end of string.\n{"name": \n         ^'],
    ['trailing garbage', '{"name": "t"} x', 'Invalid JSON payload received. Unexpected token.\n{"name": "t"} x\n              ^'],
    ['single quotes', "{'name': 't'}", "Invalid JSON payload received. Unexpected token.\n{'name': 't'}\n ^"],
    ['second line', '{\n  "name": tt\n}', 'Invalid JSON payload received. Unexpected token.\n  "name": tt\n           ^'],
  ];
  for (const [title, text, message] of cases) {
    test(title, async () => {
      await rejects('POST', INSERT, text, JSON_ADMIN, 400, 'invalid', message, 'INVALID_ARGUMENT');
    });
  }

  test('an empty body with a JSON content type is no body, so the name is missing', async () => {
    await rejects('POST', INSERT, '', JSON_ADMIN, 400, 'required', "Required field 'resource.name' not specified");
  });

  test('a JSON value that is not an object', async () => {
    await rejects('POST', INSERT, '[1,2]', JSON_ADMIN, 400, 'invalid', `Invalid value at 'resource' (${ENUM}.InstanceTemplate), [1,2]`, 'INVALID_ARGUMENT');
    await rejects('POST', INSERT, '"t1"', JSON_ADMIN, 400, 'invalid', `Invalid value at 'resource' (${ENUM}.InstanceTemplate), "t1"`, 'INVALID_ARGUMENT');
  });

  test('a content type that is not JSON', async () => {
    await rejects(
      'POST',
      INSERT,
      '<template/>',
      { ...ADMIN, 'content-type': 'application/xml' },
      415,
      'badContent',
      'Unsupported content with type: application/xml',
    );
  });
});

describe('values of the wrong JSON type', () => {
  const cases: [string, object, string][] = [
    ['bool given a string', template({ canIpForward: 'yes' }), `Invalid value at '${P}.can_ip_forward' (TYPE_BOOL), "yes"`],
    ['bool given a number', template({ canIpForward: 1 }), `Invalid value at '${P}.can_ip_forward' (TYPE_BOOL), 1`],
    ['string given a number', { name: 5, properties: { machineType: 'e2-small' } }, `Invalid value at 'resource.name' (TYPE_STRING), 5`],
    ['string given an object', template({ machineType: { name: 'e2-small' } }), `Invalid value at '${P}.machine_type' (TYPE_STRING), {"name":"e2-small"}`],
    ['message given a string', { name: 'fresh', properties: 'e2-small' }, `Invalid value at 'resource.properties' (${ENUM}.InstanceProperties), "e2-small"`],
    ['message given an array', template({ scheduling: [] }), `Invalid value at '${P}.scheduling' (${ENUM}.Scheduling), []`],
    [
      'repeated field given an object',
      template({ disks: { boot: true } }),
      `Invalid JSON payload received. Expected an array for repeated field at '${P}.disks'.`,
    ],
    [
      'null inside a repeated field',
      template({ tags: { items: ['a', null] } }),
      `Invalid JSON payload received. Null values are not allowed in repeated field '${P}.tags.items'.`,
    ],
    ['map given an array', template({ labels: ['a'] }), `Invalid JSON payload received. Expected an object for map field at '${P}.labels'.`],
    ['map value of the wrong type', template({ labels: { env: 'prod', team: 7 } }), `Invalid value at '${P}.labels[1].value' (TYPE_STRING), 7`],
    [
      'element of a repeated message, indexed',
      template({ disks: [{ boot: true }, { boot: 'no' }] }),
      `Invalid value at '${P}.disks[1].boot' (TYPE_BOOL), "no"`,
    ],
    ['element of a repeated string', template({ tags: { items: ['a', 2] } }), `Invalid value at '${P}.tags.items[1]' (TYPE_STRING), 2`],
    ['int32 given text', template({ networkInterfaces: [{ vlan: 'abc' }] }), `Invalid value at '${P}.network_interfaces[0].vlan' (TYPE_INT32), "abc"`],
    [
      'int32 given a fraction',
      template({ networkInterfaces: [{ queueCount: 1.5 }] }),
      `Invalid value at '${P}.network_interfaces[0].queue_count' (TYPE_INT32), 1.5`,
    ],
    [
      'int32 above its range',
      template({ networkInterfaces: [{ vlan: 2147483648 }] }),
      `Invalid value at '${P}.network_interfaces[0].vlan' (TYPE_INT32), 2147483648`,
    ],
    [
      'int32 below its range',
      template({ scheduling: { minNodeCpus: -2147483649 } }),
      `Invalid value at '${P}.scheduling.min_node_cpus' (TYPE_INT32), -2147483649`,
    ],
    [
      'int64 above its range',
      template({ disks: [{ boot: true, initializeParams: { diskSizeGb: '9223372036854775808' } }] }),
      `Invalid value at '${P}.disks[0].initialize_params.disk_size_gb' (TYPE_INT64), "9223372036854775808"`,
    ],
    [
      'int64 given text',
      template({ disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '10GB' } }] }),
      `Invalid value at '${P}.disks[0].initialize_params.disk_size_gb' (TYPE_INT64), "10GB"`,
    ],
    ['int64 given a fraction', template({ disks: [{ diskSizeGb: 10.5 }] }), `Invalid value at '${P}.disks[0].disk_size_gb' (TYPE_INT64), 10.5`],
    ['uint64 negative', { name: 'fresh', id: '-1', properties: { machineType: 'e2-small' } }, `Invalid value at 'resource.id' (TYPE_UINT64), "-1"`],
    [
      'uint64 above its range',
      { name: 'fresh', id: '18446744073709551616', properties: { machineType: 'e2-small' } },
      `Invalid value at 'resource.id' (TYPE_UINT64), "18446744073709551616"`,
    ],
    [
      'unknown enum value',
      template({ networkInterfaces: [{ stackType: 'IPV5' }] }),
      `Invalid value at '${P}.network_interfaces[0].stack_type' (${ENUM}.NetworkInterface.StackType), "IPV5"`,
    ],
    [
      'enum given in lower case',
      template({ disks: [{ type: 'persistent' }] }),
      `Invalid value at '${P}.disks[0].type' (${ENUM}.AttachedDisk.Type), "persistent"`,
    ],
    [
      'enum given a number',
      template({ scheduling: { onHostMaintenance: 1 } }),
      `Invalid value at '${P}.scheduling.on_host_maintenance' (${ENUM}.Scheduling.OnHostMaintenance), 1`,
    ],
    ['unknown field at the top', template({}, { foo: 1 }), 'Invalid JSON payload received. Unknown name "foo": Cannot find field.'],
    ['unknown field in properties', template({ foo: 'bar' }), `Invalid JSON payload received. Unknown name "foo" at 'resource.properties': Cannot find field.`],
    [
      'unknown field inside a repeated message',
      template({ networkInterfaces: [{}, { netwrok: 'x' }] }),
      `Invalid JSON payload received. Unknown name "netwrok" at '${P}.network_interfaces[1]': Cannot find field.`,
    ],
  ];
  for (const [title, payload, message] of cases) {
    test(title, async () => {
      await rejects('POST', INSERT, payload, ADMIN, 400, 'invalid', message, 'INVALID_ARGUMENT');
      assert.equal((await send('GET', `${INSERT}/fresh`)).status, 404);
    });
  }

  test('proto field names and numbers-as-strings are accepted as the JSON mapping allows', async () => {
    const reply = await send('POST', INSERT, {
      name: 'snake',
      properties: {
        machine_type: 'e2-small',
        can_ip_forward: true,
        network_interfaces: [{ vlan: '7', parent_nic_name: 'nic0' }],
        disks: [{ boot: true, initialize_params: { source_image: 'projects/debian-cloud/global/images/family/debian-12', disk_size_gb: 12 } }],
      },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const got = await send('GET', `${INSERT}/snake`);
    const properties = got.body['properties'] as {
      machineType: string;
      canIpForward: boolean;
      networkInterfaces: { vlan: number }[];
      disks: { initializeParams: { diskSizeGb: string } }[];
    };
    assert.equal(properties.machineType, 'e2-small');
    assert.equal(properties.canIpForward, true);
    assert.equal(properties.networkInterfaces[0]?.vlan, 7);
    assert.equal(properties.disks[0]?.initializeParams.diskSizeGb, '12');
    const removed = await send('DELETE', `${INSERT}/snake`);
    assert.equal(removed.body['status'], 'DONE');
  });
});

describe('oversized bodies', () => {
  test('a body over 1 MiB is a 413 in the compute envelope', async () => {
    const payload = JSON.stringify({ name: 'fresh', properties: { machineType: 'e2-small', description: 'x'.repeat(1024 * 1024) } });
    await rejects('POST', INSERT, payload, JSON_ADMIN, 413, 'badRequest', 'Request payload size exceeds the limit: 1048576 bytes.');
  });

  test('a body just under the limit reaches validation', async () => {
    const filler = 'x'.repeat(1024 * 1024 - 200);
    const payload = JSON.stringify({ name: 'Fresh', properties: { machineType: 'e2-small', description: filler } });
    assert.ok(Buffer.byteLength(payload) <= 1024 * 1024);
    await rejects(
      'POST',
      INSERT,
      payload,
      JSON_ADMIN,
      400,
      'invalid',
      "Invalid value for field 'resource.name': 'Fresh'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
    );
  });
});

describe('query parameters', () => {
  const body = { name: 'fresh', properties: { machineType: 'e2-small' } };
  for (const requestId of [
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    '1234567-89ab-cdef-0123-456789abcdef',
    '{12345678-89ab-cdef-0123-456789abcdef}',
  ]) {
    test(`requestId ${requestId} on insert`, async () => {
      await rejects(
        'POST',
        `${INSERT}?requestId=${encodeURIComponent(requestId)}`,
        body,
        ADMIN,
        400,
        'invalid',
        `Invalid value for field 'requestId': '${requestId}'. ${UUID_RULE}`,
      );
      assert.equal((await send('GET', `${INSERT}/fresh`)).status, 404);
    });
  }

  test('requestId on delete', async () => {
    await rejects('DELETE', `${INSERT}/existing?requestId=0`, undefined, ADMIN, 400, 'invalid', `Invalid value for field 'requestId': '0'. ${UUID_RULE}`);
    assert.equal((await send('GET', `${INSERT}/existing`)).status, 200);
  });

  const lists = [
    INSERT,
    '/compute/v1/projects/p/global/operations',
    '/compute/v1/projects/p/aggregated/instanceTemplates',
    '/compute/v1/projects/p/aggregated/operations',
  ];
  const bad: [string, string][] = [
    ['maxResults=abc', "Invalid value for field 'maxResults': 'abc'. Must be an integer."],
    ['maxResults=-1', "Invalid value for field 'maxResults': '-1'. Must be an integer."],
    ['maxResults=501', "Invalid value for field 'maxResults': '501'. Must be less than or equal to 500"],
    ['pageToken=garbage', "Invalid value for field 'pageToken': 'garbage'. The page token is invalid."],
    [
      `pageToken=${Buffer.from('o:-1').toString('base64url')}`,
      `Invalid value for field 'pageToken': '${Buffer.from('o:-1').toString('base64url')}'. The page token is invalid.`,
    ],
    ['filter=name%20%3D', "Invalid value for field 'filter': 'name ='. Invalid list filter expression: expected a value after '='."],
    ['filter=(name%20%3D%20a', "Invalid value for field 'filter': '(name = a'. Invalid list filter expression: missing ')'."],
    ['orderBy=zone', "Invalid value for field 'orderBy': 'zone'. Currently, only sorting by name or creationTimestamp desc is supported."],
    ['orderBy=name%20desc', "Invalid value for field 'orderBy': 'name desc'. Currently, only sorting by name or creationTimestamp desc is supported."],
  ];
  for (const url of lists) {
    for (const [query, message] of bad) {
      test(`${url.replace('/compute/v1/projects/p/', '')}?${query}`, async () => {
        await rejects('GET', `${url}?${query}`, undefined, ADMIN, 400, 'invalid', message);
      });
    }
  }

  test('maxResults=0 means the default page and alt/prettyPrint are ignored', async () => {
    const reply = await send('GET', `${INSERT}?maxResults=0&alt=json&prettyPrint=false`);
    assert.equal(reply.status, 200);
    assert.deepEqual(
      (reply.body['items'] as { name: string }[]).map((t) => t.name),
      ['existing'],
    );
  });

  test('an unknown region in the path', async () => {
    await rejects(
      'GET',
      '/compute/v1/projects/p/regions/atlantis1/instanceTemplates',
      undefined,
      ADMIN,
      400,
      'invalid',
      "Invalid value for field 'region': 'atlantis1'. Unknown region.",
    );
    await rejects(
      'POST',
      '/compute/v1/projects/p/regions/atlantis1/instanceTemplates',
      body,
      ADMIN,
      400,
      'invalid',
      "Invalid value for field 'region': 'atlantis1'. Unknown region.",
    );
  });

  test('an unknown zone in the path', async () => {
    await rejects(
      'GET',
      '/compute/v1/projects/p/zones/us-central1-z/operations',
      undefined,
      ADMIN,
      400,
      'invalid',
      "Invalid value for field 'zone': 'us-central1-z'. Unknown zone.",
    );
  });
});

describe('routes', () => {
  test('an unknown route under /compute/v1 is a compute-dialect 404', async () => {
    await rejects(
      'GET',
      '/compute/v1/projects/p/global/widgets?alt=json',
      undefined,
      ADMIN,
      404,
      'notFound',
      'The requested URL /compute/v1/projects/p/global/widgets was not found on this server.',
    );
  });

  test('an unknown method on a known path is a compute-dialect 404', async () => {
    await rejects('PUT', `${INSERT}/existing`, {}, ADMIN, 404, 'notFound', `The requested URL ${INSERT}/existing was not found on this server.`);
  });

  test('a missing template and a missing operation are 404 notFound with the resource path', async () => {
    await rejects('GET', `${INSERT}/absent`, undefined, ADMIN, 404, 'notFound', "The resource 'projects/p/global/instanceTemplates/absent' was not found");
    await rejects('DELETE', `${INSERT}/absent`, undefined, ADMIN, 404, 'notFound', "The resource 'projects/p/global/instanceTemplates/absent' was not found");
    await rejects(
      'GET',
      '/compute/v1/projects/p/global/operations/operation-1',
      undefined,
      ADMIN,
      404,
      'notFound',
      "The resource 'projects/p/global/operations/operation-1' was not found",
    );
  });
});
