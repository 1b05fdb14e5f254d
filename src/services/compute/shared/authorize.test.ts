import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';

/**
 * Authentication and authorization of compute calls, as Google answers them: 401 without or with
 * an unknown credential, 403 for missing OAuth scopes, and 403 PERMISSIONS_ERROR for a missing
 * IAM permission, including the field-level permissions of instanceTemplates.insert.
 */

const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const DEBIAN = 'projects/debian-cloud/global/images/family/debian-12';
const MISSING =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const INVALID =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const SCOPES = 'Request had insufficient authentication scopes.';

const TOKENS = [
  { token: 'storage-only', email: 'storage@example.com', scopes: ['https://www.googleapis.com/auth/devstorage.read_only'], permissions: ['*'] },
  { token: 'reader', email: 'reader@example.com', scopes: ['compute.readonly'], permissions: ['compute.*'] },
  { token: 'cp-reader', email: 'cp-reader@example.com', scopes: ['https://www.googleapis.com/auth/cloud-platform.read-only'], permissions: ['compute.*'] },
  {
    token: 'no-create',
    email: 'no-create@example.com',
    scopes: ['compute'],
    permissions: ['compute.instanceTemplates.get', 'compute.instanceTemplates.list', 'compute.globalOperations.get'],
  },
  { token: 'create-only', email: 'create-only@example.com', scopes: ['cloud-platform'], permissions: ['compute.instanceTemplates.create'] },
  {
    token: 'create-net',
    email: 'create-net@example.com',
    scopes: ['https://www.googleapis.com/auth/compute'],
    permissions: ['compute.instanceTemplates.create', 'compute.networks.get'],
  },
  {
    token: 'create-subnet',
    email: 'create-subnet@example.com',
    scopes: ['compute'],
    permissions: ['compute.instanceTemplates.create', 'compute.networks.get', 'compute.subnetworks.get'],
  },
  { token: 'create-image', email: 'create-image@example.com', scopes: ['compute'], permissions: ['compute.instanceTemplates.create', 'compute.images.get'] },
  {
    token: 'wildcard',
    email: 'wildcard@example.com',
    scopes: ['https://www.googleapis.com/auth/cloud-platform'],
    permissions: ['compute.instanceTemplates.*', 'compute.networks.get'],
  },
  { token: 'everything', email: 'everything@example.com', scopes: ['compute'], permissions: ['*'] },
  { token: 'no-permissions', email: 'nobody@example.com', scopes: ['compute'], permissions: [] },
];

let srv: RunningFogbank;
let existingOp: string;

before(async () => {
  srv = await startFogbank({
    host: '127.0.0.1',
    port: 0,
    store: 'memory',
    operations: 'instant',
    adminToken: 'admin',
    logLevel: 'silent',
    tokens: TOKENS,
    clock: new ManualClock(),
    ids: seededIds('authorize'),
  });
  const seeded = await call('POST', TEMPLATES, { name: 'existing', properties: { machineType: 'e2-small' } }, 'admin');
  assert.equal(seeded.status, 200);
  existingOp = seeded.body['name'] as string;
});
after(async () => {
  await srv.close();
});

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, unknown>;
}

/** call sends a request as `token` (undefined: no credential at all). */
async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  payload: object | undefined,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await srv.app.inject({
    method,
    url,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

async function state(): Promise<unknown> {
  const templates = await call('GET', '/compute/v1/projects/p/aggregated/instanceTemplates', undefined, 'admin');
  const operations = await call('GET', '/compute/v1/projects/p/aggregated/operations', undefined, 'admin');
  return { templates: templates.body['items'], operations: operations.body['items'] };
}

/** refused sends one request, checks the whole error body, and proves nothing changed. */
async function refused(reply: () => Promise<Reply>, expected: Record<string, unknown>): Promise<Reply> {
  const before = await state();
  const got = await reply();
  assert.equal(got.status, (expected['error'] as { code: number }).code, JSON.stringify(got.body));
  assert.deepEqual(got.body, expected);
  assert.deepEqual(await state(), before);
  return got;
}

const unauthenticated = (message: string, reason: string): Record<string, unknown> => ({
  error: { code: 401, message, errors: [{ message, domain: 'global', reason, location: 'Authorization', locationType: 'header' }], status: 'UNAUTHENTICATED' },
});
const insufficientScopes = {
  error: { code: 403, message: SCOPES, errors: [{ message: SCOPES, domain: 'global', reason: 'insufficientPermissions' }], status: 'PERMISSION_DENIED' },
};
const permission = (name: string, resource: string): Record<string, unknown> => {
  const message = `Required '${name}' permission for '${resource}'`;
  return { error: { code: 403, message, errors: [{ message, domain: 'global', reason: 'forbidden' }] } };
};
const template = (name: string, extra: Record<string, unknown> = {}): object => ({ name, properties: { machineType: 'e2-small', ...extra } });

describe('authentication', () => {
  const requests: [string, 'GET' | 'POST' | 'DELETE', string, object | undefined][] = [
    ['insert', 'POST', TEMPLATES, template('t')],
    ['list', 'GET', TEMPLATES, undefined],
    ['get', 'GET', `${TEMPLATES}/existing`, undefined],
    ['delete', 'DELETE', `${TEMPLATES}/existing`, undefined],
    ['operation wait', 'POST', '/compute/v1/projects/p/global/operations/x/wait', undefined],
    ['image', 'GET', `/compute/v1/${DEBIAN}`, undefined],
    ['unknown route', 'GET', '/compute/v1/projects/p/global/widgets', undefined],
    ['unknown route without the prefix', 'GET', '/projects/p/global/widgets', undefined],
  ];
  for (const [title, method, url, payload] of requests) {
    test(`no credential: ${title} → 401 with WWW-Authenticate`, async () => {
      const got = await refused(() => call(method, url, payload, undefined), unauthenticated(MISSING, 'required'));
      assert.equal(got.headers['www-authenticate'], 'Bearer realm="https://accounts.google.com/"');
      assert.equal(got.headers['content-type'], 'application/json; charset=UTF-8');
    });
    test(`unknown token: ${title} → 401 invalid credentials`, async () => {
      const got = await refused(() => call(method, url, payload, 'who-knows'), unauthenticated(INVALID, 'authError'));
      assert.equal(got.headers['www-authenticate'], 'Bearer realm="https://accounts.google.com/"');
    });
  }

  test('an Authorization header that is not a bearer token is invalid, not missing', async () => {
    await refused(() => call('GET', TEMPLATES, undefined, undefined, { authorization: 'Basic YWRtaW46YWRtaW4=' }), unauthenticated(INVALID, 'authError'));
    await refused(() => call('GET', TEMPLATES, undefined, undefined, { authorization: 'Bearer' }), unauthenticated(INVALID, 'authError'));
  });

  test('an unknown access_token query parameter is invalid; a known one works', async () => {
    await refused(() => call('GET', `${TEMPLATES}?access_token=who-knows`, undefined, undefined), unauthenticated(INVALID, 'authError'));
    const got = await call('GET', `${TEMPLATES}?access_token=reader`, undefined, undefined);
    assert.equal(got.status, 200);
    assert.deepEqual(
      (got.body['items'] as { name: string }[]).map((t) => t.name),
      ['existing'],
    );
  });
});

describe('OAuth scopes', () => {
  test('a token without compute or cloud-platform scope is refused, for reads and writes', async () => {
    await refused(() => call('GET', TEMPLATES, undefined, 'storage-only'), insufficientScopes);
    await refused(() => call('POST', TEMPLATES, template('t'), 'storage-only'), insufficientScopes);
    await refused(() => call('GET', `/compute/v1/projects/p/global/operations/${existingOp}`, undefined, 'storage-only'), insufficientScopes);
  });

  for (const token of ['reader', 'cp-reader']) {
    test(`a read-only scope (${token}) can get and list but not insert or delete`, async () => {
      assert.equal((await call('GET', TEMPLATES, undefined, token)).status, 200);
      assert.equal((await call('GET', `${TEMPLATES}/existing`, undefined, token)).status, 200);
      assert.equal((await call('GET', '/compute/v1/projects/p/aggregated/instanceTemplates', undefined, token)).status, 200);
      assert.equal((await call('GET', `/compute/v1/projects/p/global/operations/${existingOp}`, undefined, token)).status, 200);
      assert.equal((await call('POST', `/compute/v1/projects/p/global/operations/${existingOp}/wait`, undefined, token)).status, 200);
      await refused(() => call('POST', TEMPLATES, template('t'), token), insufficientScopes);
      await refused(() => call('DELETE', `${TEMPLATES}/existing`, undefined, token), insufficientScopes);
      await refused(() => call('DELETE', `/compute/v1/projects/p/global/operations/${existingOp}`, undefined, token), insufficientScopes);
    });
  }
});

describe('IAM permissions', () => {
  test('missing compute.instanceTemplates.create names the template', async () => {
    await refused(
      () => call('POST', TEMPLATES, template('t'), 'no-create'),
      permission('compute.instanceTemplates.create', 'projects/p/global/instanceTemplates/t'),
    );
    await refused(
      () => call('POST', '/compute/v1/projects/p/regions/us-central1/instanceTemplates', template('t'), 'no-create'),
      permission('compute.instanceTemplates.create', 'projects/p/regions/us-central1/instanceTemplates/t'),
    );
    assert.equal((await call('GET', `${TEMPLATES}/t`, undefined, 'admin')).status, 404);
  });

  test('the permission is checked before the body is validated', async () => {
    await refused(
      () => call('POST', TEMPLATES, template('T_1'), 'no-create'),
      permission('compute.instanceTemplates.create', 'projects/p/global/instanceTemplates/T_1'),
    );
  });

  test('get, list, delete and Operations need their own permissions', async () => {
    await refused(
      () => call('GET', `${TEMPLATES}/existing`, undefined, 'no-permissions'),
      permission('compute.instanceTemplates.get', 'projects/p/global/instanceTemplates/existing'),
    );
    await refused(() => call('GET', TEMPLATES, undefined, 'no-permissions'), permission('compute.instanceTemplates.list', 'projects/p'));
    await refused(
      () => call('DELETE', `${TEMPLATES}/existing`, undefined, 'no-create'),
      permission('compute.instanceTemplates.delete', 'projects/p/global/instanceTemplates/existing'),
    );
    await refused(
      () => call('GET', `/compute/v1/projects/p/global/operations/${existingOp}`, undefined, 'wildcard'),
      permission('compute.globalOperations.get', `projects/p/global/operations/${existingOp}`),
    );
    await refused(
      () => call('GET', '/compute/v1/projects/p/global/operations', undefined, 'wildcard'),
      permission('compute.globalOperations.list', 'projects/p'),
    );
    await refused(
      () => call('DELETE', `/compute/v1/projects/p/global/operations/${existingOp}`, undefined, 'no-create'),
      permission('compute.globalOperations.delete', `projects/p/global/operations/${existingOp}`),
    );
  });

  test('with only the create permission, a template without references is created', async () => {
    const op = await call(
      'POST',
      TEMPLATES,
      template('bare', { disks: [{ boot: true, initializeParams: { sourceImage: `https://compute.googleapis.com/compute/v1/${DEBIAN}` } }] }),
      'create-only',
    );
    assert.equal(op.status, 200);
    assert.equal(op.body['status'], 'DONE');
    assert.equal(op.body['error'], undefined);
    assert.equal(op.body['user'], 'create-only@example.com');
    assert.equal((await call('GET', `${TEMPLATES}/bare`, undefined, 'admin')).status, 200);
  });

  test('a network interface needs compute.networks.get, for the default network too', async () => {
    const expected = permission('compute.networks.get', 'projects/p/global/networks/default');
    await refused(() => call('POST', TEMPLATES, template('t', { networkInterfaces: [{}] }), 'create-only'), expected);
    await refused(() => call('POST', TEMPLATES, template('t', { networkInterfaces: [{ network: 'global/networks/default' }] }), 'create-only'), expected);
    await refused(
      () =>
        call(
          'POST',
          TEMPLATES,
          template('t', { networkInterfaces: [{ network: 'https://www.googleapis.com/compute/v1/projects/p/global/networks/default' }] }),
          'create-only',
        ),
      expected,
    );
    await refused(
      () => call('POST', TEMPLATES, template('t', { networkInterfaces: [{ network: 'projects/shared-vpc/global/networks/default' }] }), 'create-only'),
      permission('compute.networks.get', 'projects/shared-vpc/global/networks/default'),
    );
    const ok = await call('POST', TEMPLATES, template('with-network', { networkInterfaces: [{}] }), 'create-net');
    assert.equal(ok.body['status'], 'DONE');
    assert.equal(ok.body['error'], undefined);
  });

  test('a subnetwork needs compute.subnetworks.get', async () => {
    const body = template('t', { networkInterfaces: [{ network: 'global/networks/default', subnetwork: 'regions/us-central1/subnetworks/default' }] });
    await refused(
      () => call('POST', TEMPLATES, body, 'create-net'),
      permission('compute.subnetworks.get', 'projects/p/regions/us-central1/subnetworks/default'),
    );
    await refused(
      () => call('POST', TEMPLATES, template('t', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/default' }] }), 'create-only'),
      permission('compute.subnetworks.get', 'projects/p/regions/us-central1/subnetworks/default'),
    );
    const ok = await call(
      'POST',
      TEMPLATES,
      template('with-subnet', { networkInterfaces: [{ network: 'global/networks/default', subnetwork: 'regions/us-central1/subnetworks/default' }] }),
      'create-subnet',
    );
    assert.equal(ok.body['status'], 'DONE');
    assert.equal(ok.body['error'], undefined);
  });

  test('a non-public sourceImage needs compute.images.get; public images do not', async () => {
    const disk = (sourceImage: string): object => template('t', { disks: [{ boot: true, initializeParams: { sourceImage } }] });
    await refused(
      () => call('POST', TEMPLATES, disk('projects/my-images/global/images/custom'), 'create-only'),
      permission('compute.images.get', 'projects/my-images/global/images/custom'),
    );
    await refused(
      () => call('POST', TEMPLATES, disk('global/images/family/mine'), 'create-only'),
      permission('compute.images.get', 'projects/p/global/images/family/mine'),
    );
    // With the permission, the request gets as far as looking the image up.
    const message =
      "Invalid value for field 'resource.properties.disks[0].initializeParams.sourceImage': 'projects/my-images/global/images/custom'. The referenced image resource cannot be found.";
    await refused(() => call('POST', TEMPLATES, disk('projects/my-images/global/images/custom'), 'create-image'), {
      error: { code: 400, message, errors: [{ message, domain: 'global', reason: 'invalid' }] },
    });
    for (const image of [
      DEBIAN,
      'projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts',
      'projects/debian-cloud/global/images/debian-12-bookworm-v20250610',
    ]) {
      const name = `public-${image.split('/').pop()!}`;
      const op = await call(
        'POST',
        TEMPLATES,
        { name, properties: { machineType: 'e2-small', disks: [{ boot: true, initializeParams: { sourceImage: image } }] } },
        'create-only',
      );
      assert.equal(op.body['error'], undefined, image);
      assert.equal((await call('GET', `${TEMPLATES}/${name}`, undefined, 'admin')).status, 200);
    }
  });

  test('public images are readable by any authenticated caller; other projects need the permission', async () => {
    assert.equal((await call('GET', `/compute/v1/${DEBIAN}`, undefined, 'no-permissions')).status, 200);
    assert.equal((await call('GET', '/compute/v1/projects/debian-cloud/global/images', undefined, 'no-permissions')).status, 200);
    await refused(
      () => call('GET', '/compute/v1/projects/my-images/global/images/family/mine', undefined, 'no-permissions'),
      permission('compute.images.getFromFamily', 'projects/my-images/global/images/family/mine'),
    );
    await refused(
      () => call('GET', '/compute/v1/projects/p/global/networks/default', undefined, 'no-permissions'),
      permission('compute.networks.get', 'projects/p/global/networks/default'),
    );
  });

  test('wildcard grants cover their prefix and nothing else', async () => {
    const op = await call('POST', TEMPLATES, template('wild', { networkInterfaces: [{}] }), 'wildcard');
    assert.equal(op.body['status'], 'DONE');
    assert.equal(op.body['user'], 'wildcard@example.com');
    assert.equal((await call('GET', `${TEMPLATES}/wild`, undefined, 'wildcard')).status, 200);
    assert.equal((await call('GET', TEMPLATES, undefined, 'wildcard')).status, 200);
    await refused(
      () => call('POST', TEMPLATES, template('t', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/default' }] }), 'wildcard'),
      permission('compute.subnetworks.get', 'projects/p/regions/us-central1/subnetworks/default'),
    );
    const removed = await call('DELETE', `${TEMPLATES}/wild`, undefined, 'wildcard');
    assert.equal(removed.body['status'], 'DONE');
    assert.equal(removed.body['error'], undefined);
    assert.equal((await call('GET', `${TEMPLATES}/wild`, undefined, 'admin')).status, 404);

    const all = await call(
      'POST',
      TEMPLATES,
      template('star', {
        networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/default' }],
        disks: [{ boot: true, initializeParams: { sourceImage: DEBIAN } }],
      }),
      'everything',
    );
    assert.equal(all.body['status'], 'DONE');
    assert.equal(all.body['error'], undefined);
  });
});
