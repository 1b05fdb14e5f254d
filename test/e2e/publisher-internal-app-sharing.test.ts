import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { androidpublisher, auth as googleAuth, type androidpublisher_v3 } from '@googleapis/androidpublisher';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import {
  apkItems,
  bundleItems,
  compressedAs,
  jarSign,
  makeSigner,
  patchEntry,
  v2Sign,
  writeZip,
  zipBuffer,
  type TestSigner,
} from '../../src/services/publisher/artifact-builder.fixture.ts';

/**
 * Internal app sharing through the real googleapis client (@googleapis/androidpublisher): bundles
 * and APKs built here from nothing, uploaded by media and multipart, answered with the real
 * InternalAppSharingArtifact whose sha256 and certificateFingerprint match sha256sum and openssl,
 * whose downloadUrl serves a page and the same bytes; bad uploads give the real errors.
 */

const PACKAGE = 'com.example.fogbank';
const TOKEN = 'publisher-token';

let srv: RunningFogbank;
let work: string;
let client: androidpublisher_v3.Androidpublisher;
let signer: TestSigner;
let signedBundle: string;
let unsignedApk: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'fogbank-publisher-e2e-'));
  srv = await startFogbank({
    host: '127.0.0.1',
    port: 0,
    store: 'sqlite',
    dataDir: join(work, 'data'),
    adminToken: 'admin',
    logLevel: 'silent',
    tokens: [{ token: TOKEN, email: 'release@example.com', scopes: ['androidpublisher'], permissions: [] }],
  });
  const oauth = new googleAuth.OAuth2();
  oauth.setCredentials({ access_token: TOKEN, expiry_date: Date.UTC(2100, 0, 1) });
  client = androidpublisher({ version: 'v3', rootUrl: `${srv.url}/`, auth: oauth });
  signer = makeSigner('Release Upload Key');
  writeFileSync(join(work, 'upload-cert.pem'), signer.certificatePem);
  signedBundle = join(work, 'app.aab');
  await writeZip(signedBundle, jarSign(bundleItems({ packageName: PACKAGE, versionCode: 42, versionName: '4.2.0' }), signer));
  unsignedApk = join(work, 'app.apk');
  await writeZip(unsignedApk, apkItems({ packageName: PACKAGE, versionCode: 7, versionName: '0.7' }));
});

after(async () => {
  await srv.close();
  rmSync(work, { recursive: true, force: true });
});

/** opensslFingerprint is what `openssl x509 -fingerprint -sha256` prints for a PEM certificate. */
function opensslFingerprint(pemFile: string): string {
  const out = execFileSync('openssl', ['x509', '-in', pemFile, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' });
  return out.trim().replace(/^sha256 Fingerprint=/i, '');
}

function sha256sum(file: string): string {
  return execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0]!;
}

async function uploadBundle(file: string, packageName = PACKAGE, requestBody?: object): Promise<androidpublisher_v3.Schema$InternalAppSharingArtifact> {
  const response = await client.internalappsharingartifacts.uploadbundle(
    { packageName, media: { mimeType: 'application/octet-stream', body: createReadStream(file) }, ...(requestBody === undefined ? {} : { requestBody }) },
    { rootUrl: `${srv.url}/`, retry: false },
  );
  assert.equal(response.status, 200);
  return response.data;
}

/** rejection runs a client call expected to fail and returns its status and Google error body. */
async function rejection(call: () => Promise<unknown>): Promise<{ status: number; error: Record<string, unknown>; message: string }> {
  try {
    await call();
  } catch (error) {
    const failure = error as { status?: number; message: string; response?: { status: number; data: { error: Record<string, unknown> } } };
    return { status: failure.response!.status, error: failure.response!.data.error, message: failure.message };
  }
  assert.fail('the call succeeded');
}

describe('uploadbundle', () => {
  test("media upload of a jar-signed bundle: sha256 is sha256sum, certificateFingerprint is openssl's", async () => {
    const artifact = await uploadBundle(signedBundle);
    assert.deepEqual(Object.keys(artifact).sort(), ['certificateFingerprint', 'downloadUrl', 'sha256']);
    assert.equal(artifact.sha256, sha256sum(signedBundle));
    assert.equal(artifact.certificateFingerprint, opensslFingerprint(join(work, 'upload-cert.pem')));
    assert.match(artifact.downloadUrl!, new RegExp(`^${srv.url}/_fogbank/publisher/apps/test/${PACKAGE}/[A-Za-z0-9_-]{24}$`));
  });

  test('multipart upload with requestBody {} gives the same artifact fields', async () => {
    const artifact = await uploadBundle(signedBundle, PACKAGE, {});
    assert.equal(artifact.sha256, sha256sum(signedBundle));
    assert.equal(artifact.certificateFingerprint, opensslFingerprint(join(work, 'upload-cert.pem')));
  });

  test('the downloadUrl opens a page naming the app, version, certificate and size, and downloads the same bytes', async () => {
    const artifact = await uploadBundle(signedBundle);
    const page = await fetch(artifact.downloadUrl!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    const html = await page.text();
    const size = readFileSync(signedBundle).length;
    for (const expected of [PACKAGE, '42 (4.2.0)', artifact.certificateFingerprint!, 'CN=Release Upload Key', `${size} bytes`])
      assert.ok(html.includes(expected), `page lacks ${expected}`);
    const link = /href="([^"]+)"/.exec(html)![1]!;
    assert.equal(link, `${artifact.downloadUrl}/download`);
    const download = await fetch(link);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-disposition'), `attachment; filename="${PACKAGE}-42.aab"`);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(readFileSync(signedBundle)));
  });

  test('a bundle for another package gives the real ADHOC_PACKAGE_NAME_MISMATCH', async () => {
    const other = join(work, 'other.aab');
    await writeZip(other, bundleItems({ packageName: 'com.example.staging', versionCode: 1 }));
    const failure = await rejection(() => uploadBundle(other));
    assert.equal(failure.status, 400);
    assert.equal(failure.message, `UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (${PACKAGE})`);
    assert.deepEqual(failure.error, {
      code: 400,
      message: `UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (${PACKAGE})`,
      errors: [{ message: `UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (${PACKAGE})`, domain: 'global', reason: 'badRequest' }],
      status: 'INVALID_ARGUMENT',
    });
  });

  test('corrupt bundles are refused with 400 INVALID_ARGUMENT and leave nothing behind', async () => {
    const notZip = join(work, 'not-zip.aab');
    writeFileSync(notZip, 'this is not a zip archive at all');
    const truncated = join(work, 'truncated.aab');
    writeFileSync(truncated, readFileSync(signedBundle).subarray(0, 300));
    const apkAsBundle = unsignedApk;
    const cases: [string, string][] = [
      [notZip, 'The uploaded bundle is not a ZIP archive (it does not start with a ZIP local file header).'],
      [
        truncated,
        'The uploaded bundle is not a valid ZIP archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
      ],
      [
        apkAsBundle,
        'The uploaded file is an APK, not an Android App Bundle (it has a top-level AndroidManifest.xml and no base/manifest/AndroidManifest.xml); upload APKs with uploadapk (artifacts/apk).',
      ],
    ];
    const before = (await srv.store.list('publisher.internalAppSharingArtifacts')).length;
    for (const [file, message] of cases) {
      const failure = await rejection(() => uploadBundle(file));
      assert.equal(failure.status, 400, file);
      assert.equal(failure.message, message);
      assert.equal(failure.error['status'], 'INVALID_ARGUMENT');
    }
    assert.equal((await srv.store.list('publisher.internalAppSharingArtifacts')).length, before);
    assert.deepEqual(readdirSync(join(work, 'data', 'publisher', 'spool')), []);
  });
});

describe('uploadapk', () => {
  test("an unsigned APK is fingerprinted with the data directory's fogbank signing certificate, the same every time", async () => {
    const call = async () =>
      (
        await client.internalappsharingartifacts.uploadapk(
          { packageName: PACKAGE, media: { mimeType: 'application/vnd.android.package-archive', body: createReadStream(unsignedApk) } },
          { rootUrl: `${srv.url}/`, retry: false },
        )
      ).data;
    const first = await call();
    const second = await call();
    assert.equal(first.sha256, sha256sum(unsignedApk));
    assert.equal(first.certificateFingerprint, opensslFingerprint(join(work, 'data', 'publisher', 'signing-certificate.pem')));
    assert.equal(second.certificateFingerprint, first.certificateFingerprint);
    assert.notEqual(second.downloadUrl, first.downloadUrl);
    const html = await (await fetch(first.downloadUrl!)).text();
    assert.ok(html.includes('fogbank (the upload was unsigned)'));
  });

  test("an APK signed only with APK Signature Scheme v2 is fingerprinted with its signer's certificate", async () => {
    const v2Apk = join(work, 'v2.apk');
    writeFileSync(v2Apk, v2Sign(await zipBuffer(apkItems({ packageName: PACKAGE, versionCode: 8 })), signer));
    const artifact = (
      await client.internalappsharingartifacts.uploadapk(
        { packageName: PACKAGE, media: { body: createReadStream(v2Apk) } },
        { rootUrl: `${srv.url}/`, retry: false },
      )
    ).data;
    assert.equal(artifact.sha256, sha256sum(v2Apk));
    assert.equal(artifact.certificateFingerprint, opensslFingerprint(join(work, 'upload-cert.pem')));
  });

  test('a bundle sent to uploadapk is refused by name', async () => {
    const failure = await rejection(() =>
      client.internalappsharingartifacts.uploadapk(
        { packageName: PACKAGE, media: { body: createReadStream(signedBundle) } },
        { rootUrl: `${srv.url}/`, retry: false },
      ),
    );
    assert.equal(failure.status, 400);
    assert.equal(
      failure.message,
      'The uploaded file is an Android App Bundle, not an APK (it has BundleConfig.pb or base/manifest/AndroidManifest.xml); upload bundles with uploadbundle (artifacts/bundle).',
    );
  });
});

/** CurlAnswer is an upload's JSON answer: the artifact, or a Google error. */
interface CurlAnswer {
  readonly sha256?: string;
  readonly error?: { readonly status: string; readonly message: string };
}

describe("stored (uncompressed) entries, as zip, Python's zipfile and build tools write them", () => {
  /** curlUpload posts `file` with curl (uploadType=media) and returns the status and parsed body; curl gives up after 60 s, so a hang fails the test. */
  async function curlUpload(file: string, kind: 'bundle' | 'apk'): Promise<{ status: number; body: CurlAnswer }> {
    const url = `${srv.url}/upload/androidpublisher/v3/applications/internalappsharing/${PACKAGE}/artifacts/${kind}?uploadType=media`;
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '--max-time',
      '60',
      '-X',
      'POST',
      '-H',
      `Authorization: Bearer ${TOKEN}`,
      '-H',
      'Content-Type: application/octet-stream',
      '--data-binary',
      `@${file}`,
      '-w',
      '\n%{http_code}',
      url,
    ]);
    const cut = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) as CurlAnswer };
  }

  test('a stored jar-signed bundle through the googleapis client (media and multipart) gets its artifact', async () => {
    const stored = join(work, 'stored.aab');
    await writeZip(stored, compressedAs(jarSign(bundleItems({ packageName: PACKAGE, versionCode: 43 }), signer), 'stored'));
    for (const requestBody of [undefined, {}]) {
      const artifact = await uploadBundle(stored, PACKAGE, requestBody);
      assert.equal(artifact.sha256, sha256sum(stored));
      assert.equal(artifact.certificateFingerprint, opensslFingerprint(join(work, 'upload-cert.pem')));
    }
  });

  test('a mixed bundle and a stored APK through the googleapis client get their artifacts', async () => {
    const mixed = join(work, 'mixed.aab');
    await writeZip(mixed, compressedAs(jarSign(bundleItems({ packageName: PACKAGE, versionCode: 44 }), signer), 'mixed'));
    assert.equal((await uploadBundle(mixed)).sha256, sha256sum(mixed));
    const storedApk = join(work, 'stored.apk');
    writeFileSync(storedApk, v2Sign(await zipBuffer(compressedAs(apkItems({ packageName: PACKAGE, versionCode: 9 }), 'stored')), signer));
    const artifact = (
      await client.internalappsharingartifacts.uploadapk(
        { packageName: PACKAGE, media: { body: createReadStream(storedApk) } },
        { rootUrl: `${srv.url}/`, retry: false },
      )
    ).data;
    assert.equal(artifact.sha256, sha256sum(storedApk));
    assert.equal(artifact.certificateFingerprint, opensslFingerprint(join(work, 'upload-cert.pem')));
  });

  test('curl (uploadType=media) with a stored bundle and a stored APK gets the artifact answer', async () => {
    const stored = join(work, 'curl-stored.aab');
    await writeZip(stored, compressedAs(bundleItems({ packageName: PACKAGE, versionCode: 45 }), 'stored'));
    const bundle = await curlUpload(stored, 'bundle');
    assert.equal(bundle.status, 200);
    assert.deepEqual(Object.keys(bundle.body).sort(), ['certificateFingerprint', 'downloadUrl', 'sha256']);
    assert.equal(bundle.body.sha256, sha256sum(stored));
    const storedApk = join(work, 'curl-stored.apk');
    await writeZip(storedApk, compressedAs(apkItems({ packageName: PACKAGE, versionCode: 10 }), 'stored'));
    const apk = await curlUpload(storedApk, 'apk');
    assert.equal(apk.status, 200);
    assert.equal(apk.body.sha256, sha256sum(storedApk));
  });

  test('curl with a corrupt stored bundle (a broken local header, a forged size, an unreadable method) gets a precise 400 at once', async () => {
    const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PACKAGE }), 'stored'));
    const manifest = 'base/manifest/AndroidManifest.xml';
    const cases: [Buffer, RegExp][] = [
      [
        patchEntry(zip, manifest, { localSignature: 0 }),
        /^The bundle entry base\/manifest\/AndroidManifest\.xml cannot be read: there is no local file header at offset \d+\.$/,
      ],
      [
        patchEntry(zip, manifest, { uncompressedSize: 1 }),
        /^The uploaded bundle is not a valid ZIP archive: compressed\/uncompressed size mismatch for stored file: \d+ != 1\.$/,
      ],
      [
        patchEntry(zip, manifest, { method: 12 }),
        /^The uploaded bundle's entry base\/manifest\/AndroidManifest\.xml uses compression method 12; only stored \(0\) and deflated \(8\) entries are accepted\.$/,
      ],
    ];
    for (const [bytes, message] of cases) {
      const file = join(work, 'corrupt-stored.aab');
      writeFileSync(file, bytes);
      const reply = await curlUpload(file, 'bundle');
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error?.status, 'INVALID_ARGUMENT');
      assert.match(reply.body.error?.message ?? '', message);
    }
    assert.deepEqual(readdirSync(join(work, 'data', 'publisher', 'spool')), []);
  });
});
