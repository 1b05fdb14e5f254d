import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';
import { ManualClock } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { apkItems, bundleItems, jarSign, makeSigner, protoManifest, zipBuffer, type ZipItem } from './artifact-builder.fixture.ts';
import { ARTIFACT_KIND } from './artifacts.ts';

/**
 * The publisher over HTTP (in-process requests): both path spellings, upload protocols,
 * authentication and app lists, and every kind of bad upload answered with a 4xx in Google's
 * envelope, with no artifact recorded and no file left behind.
 */

const PKG = 'com.example.http';
const UPLOAD_LIMIT = 64 * 1024;
const TOKENS = [
  { token: 'releaser', email: 'releaser@example.com', scopes: ['androidpublisher'], permissions: [] },
  { token: 'spec-scope', email: 'spec@example.com', scopes: ['https://www.googleapis.com/auth/publisher'], permissions: [] },
  { token: 'compute-only', email: 'compute@example.com', scopes: ['compute'], permissions: ['*'] },
  { token: 'app-a', email: 'a@example.com', scopes: ['androidpublisher'], permissions: [], apps: [PKG] },
  { token: 'app-b', email: 'b@example.com', scopes: ['androidpublisher'], permissions: [], apps: ['com.example.other'] },
];

let srv: RunningFogbank;
let work: string;
let bundle: Buffer;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'fogbank-publisher-http-'));
  srv = await startFogbank({
    port: 0,
    store: 'memory',
    dataDir: work,
    adminToken: 'admin',
    logLevel: 'silent',
    tokens: TOKENS,
    clock: new ManualClock(),
    ids: seededIds('publisher-http'),
    uploadLimit: UPLOAD_LIMIT,
  });
  bundle = await zipBuffer(bundleItems({ packageName: PKG, versionCode: 3, versionName: '3.0' }));
});
after(async () => {
  await srv.close();
  rmSync(work, { recursive: true, force: true });
});

interface Reply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary fields of the artifact and error answers
  readonly body: any;
  readonly headers: Record<string, unknown>;
}

async function post(
  url: string,
  payload: Buffer | string | Readable | undefined,
  token: string | null = 'releaser',
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await srv.app.inject({
    method: 'POST',
    url,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), 'content-type': 'application/octet-stream', ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: response.statusCode, body: response.body === '' ? undefined : JSON.parse(response.body), headers: response.headers };
}

const bundleUrl = (pkg = PKG, base = '/upload/androidpublisher/v3', query = '?uploadType=media') =>
  `${base}/applications/internalappsharing/${pkg}/artifacts/bundle${query}`;

function envelope(code: number, status: string, reason: string, message: string, extra: Record<string, string> = {}): object {
  return { error: { code, message, errors: [{ message, domain: 'global', reason, ...extra }], status } };
}

async function artifactCount(): Promise<number> {
  return srv.store.count(ARTIFACT_KIND);
}

function leftovers(): string[] {
  const incoming = join(work, 'publisher', 'spool');
  return existsSync(incoming) ? readdirSync(incoming) : [];
}

/** patchCentralSize rewrites the uncompressed size a ZIP's central directory declares for `name` (a forged header). */
function patchCentralSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.indexOf('PK\x01\x02'); at !== -1; at = out.indexOf('PK\x01\x02', at + 4)) {
    const nameLength = out.readUInt16LE(at + 28);
    if (out.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      out.writeUInt32LE(size, at + 24);
      return out;
    }
  }
  throw new Error(`no central directory entry ${name}`);
}

describe('paths and protocols', () => {
  test('the spec spelling (/upload/publisher/v3) and the real one answer the same artifact', async () => {
    const real = await post(bundleUrl(), bundle);
    const spec = await post(bundleUrl(PKG, '/upload/publisher/v3'), bundle);
    assert.equal(real.status, 200);
    assert.equal(spec.status, 200);
    assert.equal(real.body.sha256, spec.body.sha256);
    assert.equal(real.body.certificateFingerprint, spec.body.certificateFingerprint);
  });

  test("an upload address without uploadType is Google's wrongUrlForUpload; multipart with an empty metadata part works", async () => {
    const bare = await post(bundleUrl(PKG, '/upload/androidpublisher/v3', ''), bundle);
    assert.deepEqual(
      bare.body,
      envelope(400, 'INVALID_ARGUMENT', 'wrongUrlForUpload', 'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/'),
    );
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-type: application/json\r\n\r\n\r\n--${boundary}\r\ncontent-type: application/octet-stream\r\n\r\n`),
      bundle,
      Buffer.from(`\r\n--${boundary}--`),
    ]);
    const reply = await post(bundleUrl(PKG, '/upload/androidpublisher/v3', '?uploadType=multipart'), body, 'releaser', {
      'content-type': `multipart/related; boundary=${boundary}`,
    });
    assert.equal(reply.status, 200);
  });

  test('a multipart body without its media part, or with bad metadata, is a 400', async () => {
    const url = bundleUrl(PKG, '/upload/androidpublisher/v3', '?uploadType=multipart');
    const only = await post(url, '--x\r\ncontent-type: application/json\r\n\r\n{}\r\n--x--', 'releaser', { 'content-type': 'multipart/related; boundary=x' });
    assert.deepEqual(only.body, envelope(400, 'INVALID_ARGUMENT', 'badRequest', 'Invalid multipart request with 1 mime parts.'));
    const badJson = await post(url, '--x\r\ncontent-type: application/json\r\n\r\n{nope\r\n--x\r\n\r\nPK\r\n--x--', 'releaser', {
      'content-type': 'multipart/related; boundary=x',
    });
    assert.deepEqual(badJson.body, envelope(400, 'INVALID_ARGUMENT', 'parseError', 'Invalid JSON payload received. Unexpected token.'));
    const unterminated = await post(url, Buffer.concat([Buffer.from('--x\r\ncontent-type: application/json\r\n\r\n{}\r\n--x\r\n\r\n'), bundle]), 'releaser', {
      'content-type': 'multipart/related; boundary=x',
    });
    assert.deepEqual(unterminated.body, envelope(400, 'INVALID_ARGUMENT', 'badRequest', 'Invalid multipart request: Unexpected end of multipart data.'));
    const noBoundary = await post(url, bundle, 'releaser', { 'content-type': 'application/octet-stream' });
    assert.deepEqual(
      noBoundary.body,
      envelope(400, 'INVALID_ARGUMENT', 'badRequest', "Invalid multipart request: the Content-Type must be multipart/related, not 'application/octet-stream'."),
    );
    assert.deepEqual(leftovers(), []);
  });

  test("the metadata address takes no media: Google's wrongUrlForUpload, under both spellings", async () => {
    for (const base of ['/androidpublisher/v3', '/publisher/v3']) {
      const reply = await post(`${base}/applications/internalappsharing/com.example.http/artifacts/bundle`, '{}', 'releaser', {
        'content-type': 'application/json',
      });
      assert.deepEqual(
        reply.body,
        envelope(
          400,
          'INVALID_ARGUMENT',
          'wrongUrlForUpload',
          'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/',
        ),
      );
    }
  });

  test('a resumable upload, under the /resumable/upload alias and chunk by chunk, ends in the artifact of the whole bundle', async () => {
    const start = await srv.app.inject({
      method: 'POST',
      url: '/resumable/upload/androidpublisher/v3/applications/internalappsharing/com.example.http/artifacts/bundle?uploadType=resumable',
      headers: { authorization: 'Bearer releaser', 'x-upload-content-type': 'application/octet-stream', 'x-upload-content-length': String(bundle.length) },
    });
    assert.equal(start.statusCode, 200);
    const location = new URL(String(start.headers.location));
    assert.match(location.search, /upload_id=/);
    const half = Math.floor(bundle.length / 2);
    const first = await srv.app.inject({
      method: 'PUT',
      url: location.pathname + location.search,
      headers: { 'content-range': `bytes 0-${half - 1}/${bundle.length}` },
      payload: bundle.subarray(0, half),
    });
    assert.equal(first.statusCode, 308);
    assert.equal(first.headers.range, `bytes=0-${half - 1}`);
    const last = await srv.app.inject({
      method: 'PUT',
      url: location.pathname + location.search,
      headers: { 'content-range': `bytes ${half}-${bundle.length - 1}/${bundle.length}` },
      payload: bundle.subarray(half),
    });
    assert.equal(last.statusCode, 200);
    const artifact = JSON.parse(last.body);
    assert.equal(artifact.sha256, createHash('sha256').update(bundle).digest('hex'));
    assert.match(artifact.downloadUrl, /^http:\/\//);
  });

  test('unknown paths under the publisher prefixes answer 404 in the Google envelope', async () => {
    const reply = await post('/upload/androidpublisher/v3/applications/internalappsharing/x/artifacts/obb', bundle);
    assert.deepEqual(
      reply.body,
      envelope(
        404,
        'NOT_FOUND',
        'notFound',
        'The requested URL /upload/androidpublisher/v3/applications/internalappsharing/x/artifacts/obb was not found on this server.',
      ),
    );
  });

  test("an unknown path in the spec's spelling is told as sent, and needs credentials as a known one does", async () => {
    const unknown = '/upload/publisher/v3/applications/internalappsharing/x/artifacts/obb';
    const reply = await post(unknown, bundle);
    assert.deepEqual(reply.body, envelope(404, 'NOT_FOUND', 'notFound', `The requested URL ${unknown} was not found on this server.`));
    const anonymous = await post(unknown, bundle, null);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.status, 'UNAUTHENTICATED');
    // The download pages take no credentials: an unknown path there is only unknown.
    assert.equal((await post('/_fogbank/publisher/nothing', undefined, null)).status, 404);
  });

  test('the admin listing names every artifact of a package, oldest first, with its download link', async () => {
    const pkg = 'com.example.listed';
    const listedBundle = await zipBuffer(bundleItems({ packageName: pkg, versionCode: 9 }));
    const first = await post(bundleUrl(pkg), listedBundle);
    const second = await post(bundleUrl(pkg), listedBundle);
    const reply = await srv.app.inject({
      method: 'GET',
      url: `/_fogbank/publisher/applications/${pkg}/artifacts`,
      headers: { authorization: 'Bearer releaser' },
    });
    assert.equal(reply.statusCode, 200);
    const { artifacts } = JSON.parse(reply.body) as { artifacts: Record<string, unknown>[] };
    assert.deepEqual(
      artifacts.map((a) => a['downloadUrl']),
      [first.body.downloadUrl, second.body.downloadUrl],
    );
    assert.equal(artifacts[0]?.['packageName'], pkg);
    assert.equal(artifacts[0]?.['versionCode'], 9);
    assert.equal(artifacts[0]?.['kind'], 'bundle');
    assert.equal(artifacts[0]?.['signedBy'], 'fogbank');
    assert.equal(artifacts[0]?.['size'], listedBundle.length);
    const missing = await srv.app.inject({ method: 'GET', url: `/_fogbank/publisher/apps/test/${pkg}/nope` });
    assert.deepEqual(JSON.parse(missing.body), envelope(404, 'NOT_FOUND', 'notFound', `No internal app sharing artifact nope for package ${pkg}.`));
  });
});

describe('authentication and apps', () => {
  test('no credential and an unknown token are 401 UNAUTHENTICATED', async () => {
    const none = await post(bundleUrl(), bundle, null);
    assert.equal(none.status, 401);
    assert.deepEqual(
      none.body,
      envelope(
        401,
        'UNAUTHENTICATED',
        'required',
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        {
          location: 'Authorization',
          locationType: 'header',
        },
      ),
    );
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="https://accounts.google.com/"');
    const unknown = await post(bundleUrl(), bundle, 'nobody');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.errors[0].reason, 'authError');
  });

  test("a token without the publisher scope is 403; the spec's neutral scope name is the same grant", async () => {
    const reply = await post(bundleUrl(), bundle, 'compute-only');
    assert.equal(reply.status, 403);
    assert.equal(reply.body.error.message, 'Request had insufficient authentication scopes.');
    assert.equal(reply.body.error.status, 'PERMISSION_DENIED');
    assert.equal(reply.body.error.details[0].reason, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    assert.equal((await post(bundleUrl(), bundle, 'spec-scope')).status, 200);
  });

  test("with an app list: the listed app is accepted, another's is 403, an unknown one is 404", async () => {
    assert.equal((await post(bundleUrl(), bundle, 'app-a')).status, 200);
    const others = await post(bundleUrl('com.example.other'), bundle, 'app-a');
    assert.deepEqual(others.body, envelope(403, 'PERMISSION_DENIED', 'forbidden', 'The caller does not have permission'));
    const unknown = await post(bundleUrl('com.example.ghost'), bundle, 'app-b');
    assert.deepEqual(unknown.body, envelope(404, 'NOT_FOUND', 'notFound', 'Package not found: com.example.ghost.'));
  });

  test('a name that cannot be an application id is a package that does not exist', async () => {
    for (const name of ['single', 'com..example', '1com.example', 'com.example-app', 'com.example.']) {
      const reply = await post(bundleUrl(name), bundle);
      assert.deepEqual(reply.body, envelope(404, 'NOT_FOUND', 'notFound', `Package not found: ${name}.`), name);
    }
  });
});

describe('bad uploads', () => {
  const invalid = (message: string) => envelope(400, 'INVALID_ARGUMENT', 'badRequest', message);

  async function refused(payload: Buffer | Readable, expected: object, url = bundleUrl(), status = 400): Promise<void> {
    const count = await artifactCount();
    const reply = await post(url, payload);
    assert.equal(reply.status, status);
    assert.deepEqual(reply.body, expected);
    assert.equal(await artifactCount(), count, 'an artifact was recorded');
    assert.deepEqual(leftovers(), [], 'a partial file was left behind');
  }

  test('an empty body', async () => {
    await refused(Buffer.alloc(0), invalid('The uploaded bundle is empty.'));
  });

  test('a body that is not a ZIP', async () => {
    await refused(
      Buffer.from('<manifest package="x"/>'),
      invalid('The uploaded bundle is not a ZIP archive (it does not start with a ZIP local file header).'),
    );
  });

  test('a truncated ZIP', async () => {
    await refused(
      bundle.subarray(0, bundle.length - 30),
      invalid(
        'The uploaded bundle is not a valid ZIP archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
      ),
    );
  });

  test('a ZIP bomb: an entry declaring far more than DEFLATE can produce from its bytes', async () => {
    const bomb = patchCentralSize(bundle, 'base/resources.pb', 0xfffffff0);
    const reply = await post(bundleUrl(), bomb);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.message, 'The uploaded bundle looks like a ZIP bomb: entry base/resources.pb declares 4294967280 bytes from 6 compressed.');
    assert.deepEqual(leftovers(), []);
  });

  test('a manifest entry whose header lies about its size is cut off while inflating', async () => {
    const big = await zipBuffer(
      [...bundleItems({ packageName: PKG }).filter((item) => item.name !== 'base/resources.pb'), { name: 'pad', data: Buffer.alloc(10) }].map((item) =>
        item.name === 'base/manifest/AndroidManifest.xml' && 'data' in item ? { ...item, data: Buffer.concat([item.data, Buffer.alloc(200_000)]) } : item,
      ),
    );
    const lying = patchCentralSize(big, 'base/manifest/AndroidManifest.xml', 100);
    const reply = await post(bundleUrl(), lying);
    assert.equal(reply.status, 400);
    assert.equal(
      reply.body.error.message,
      'The bundle entry base/manifest/AndroidManifest.xml cannot be read: it inflates to more than the 100 bytes its header declares.',
    );
    assert.deepEqual(leftovers(), []);
  });

  test('a bundle without BundleConfig.pb or without its base manifest', async () => {
    const items = bundleItems({ packageName: PKG });
    await refused(
      await zipBuffer(items.filter((item) => item.name !== 'BundleConfig.pb')),
      invalid('The uploaded bundle is not an Android App Bundle: it has no BundleConfig.pb.'),
    );
    await refused(
      await zipBuffer(items.filter((item) => item.name !== 'base/manifest/AndroidManifest.xml')),
      invalid('The uploaded bundle has no base module manifest (base/manifest/AndroidManifest.xml).'),
    );
  });

  test('a manifest that is not a protobuf XmlNode (text XML, garbage) or has no <manifest> root', async () => {
    const withManifest = (data: Buffer): ZipItem[] =>
      bundleItems({ packageName: PKG }).map((item) => (item.name === 'base/manifest/AndroidManifest.xml' ? { name: item.name, data } : item));
    const text = await zipBuffer(withManifest(Buffer.from('<?xml version="1.0"?><manifest package="com.example.http"/>')));
    const reply = await post(bundleUrl(), text);
    assert.equal(reply.status, 400);
    assert.match(reply.body.error.message, /^The bundle's base\/manifest\/AndroidManifest\.xml is not a valid protocol buffer XmlNode: .+\.$/);
    const cut = protoManifest({ packageName: PKG, versionCode: 1 });
    const truncated = await zipBuffer(withManifest(cut.subarray(0, cut.length - 5)));
    assert.match(
      (await post(bundleUrl(), truncated)).body.error.message,
      /^The bundle's base\/manifest\/AndroidManifest\.xml is not a valid protocol buffer XmlNode: premature EOF\.$/,
    );
    await refused(
      await zipBuffer(withManifest(Buffer.from([0x12, 0x02, 0x68, 0x69]))),
      invalid("The bundle's base/manifest/AndroidManifest.xml does not have a <manifest> root element."),
    );
    assert.deepEqual(leftovers(), []);
  });

  test('a JAR signature that does not verify (the .SF changed after signing)', async () => {
    const items = jarSign(bundleItems({ packageName: PKG }), makeSigner('Tamper Test'));
    const tampered = items.map((item) =>
      item.name === 'META-INF/CERT.SF' && 'data' in item ? { name: item.name, data: Buffer.concat([item.data, Buffer.from('Name: x\r\n\r\n')]) } : item,
    );
    const reply = await post(bundleUrl(), await zipBuffer(tampered));
    assert.equal(reply.status, 400);
    assert.equal(
      reply.body.error.message,
      "The bundle's JAR signature META-INF/CERT.RSA does not verify against META-INF/CERT.SF: the signature does not match the signature file.",
    );
  });

  test('over the upload limit: 413, whether the length is declared or streamed', async () => {
    const tooLarge = Buffer.concat([bundle, Buffer.alloc(UPLOAD_LIMIT)]);
    const expected = envelope(413, 'INVALID_ARGUMENT', 'uploadTooLarge', `Media larger than the maximum size of ${UPLOAD_LIMIT} bytes.`);
    await refused(tooLarge, expected, bundleUrl(), 413);
    await refused(Readable.from([tooLarge.subarray(0, 40_000), tooLarge.subarray(40_000)]), expected, bundleUrl(), 413);
  });

  for (const protocol of ['media', 'multipart'] as const) {
    test(`a client that disconnects halfway (${protocol}) leaves no spool file and no artifact`, async () => {
      const count = await artifactCount();
      const url = new URL(bundleUrl(PKG, '/upload/androidpublisher/v3', `?uploadType=${protocol}`), srv.url);
      const head =
        protocol === 'media'
          ? Buffer.alloc(0)
          : Buffer.from('--x\r\ncontent-type: application/json\r\n\r\n{}\r\n--x\r\ncontent-type: application/octet-stream\r\n\r\n');
      const contentType = protocol === 'media' ? 'application/octet-stream' : 'multipart/related; boundary=x';
      const socket = connect(Number(url.port), url.hostname);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer releaser\r\nContent-Type: ${contentType}\r\nContent-Length: ${bundle.length * 4}\r\n\r\n`,
      );
      socket.write(Buffer.concat([head, bundle]));
      // Wait (bounded) until the server has started spooling, then vanish.
      for (let i = 0; i < 200 && leftovers().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(leftovers().length, 1, 'the upload never started spooling');
      socket.destroy();
      for (let i = 0; i < 200 && leftovers().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(leftovers(), []);
      assert.equal(await artifactCount(), count);
    });
  }

  test('an APK without a manifest, and an APK for another package', async () => {
    const apkUrl = `/upload/androidpublisher/v3/applications/internalappsharing/${PKG}/artifacts/apk?uploadType=media`;
    await refused(
      await zipBuffer(apkItems({ packageName: PKG }).filter((item) => item.name !== 'AndroidManifest.xml')),
      invalid('The uploaded APK has no AndroidManifest.xml.'),
      apkUrl,
    );
    await refused(
      await zipBuffer(apkItems({ packageName: 'com.example.flavor' })),
      invalid(`UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (${PKG})`),
      apkUrl,
    );
  });
});
