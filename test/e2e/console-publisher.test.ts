/**
 * The console's publisher view in headless Chromium: a bundle uploaded with
 * @googleapis/androidpublisher appears live under its package with the version, the signing
 * certificate's fingerprint and the SHA-256 the API answered, and a download link serving the
 * same bytes; the journal shows the upload; axe-core clean.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { androidpublisher, auth as googleAuth, type androidpublisher_v3 } from '@googleapis/androidpublisher';
import type { Browser, Page } from 'playwright-core';
import { bundleItems, jarSign, makeSigner, writeZip } from '../../src/services/publisher/artifact-builder.fixture.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, screenshot, signedInPage, type watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-publisher-admin';
const PACKAGE = 'com.example.console';

describe('the web console in headless Chromium: publisher', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let work: string;
  let client: androidpublisher_v3.Androidpublisher;
  let inert: ReturnType<typeof watchInert>;

  before(async () => {
    await ensureConsoleBuilt();
    work = mkdtempSync(join(tmpdir(), 'fogbank-console-publisher-'));
    server = await startFogbank({
      ephemeral: true,
      port: 0,
      adminToken: TOKEN,
      tokens: [
        { token: 'other-app', email: 'other@example.com', scopes: ['androidpublisher'], permissions: [], apps: ['com.example.other'] },
        { token: 'this-app', email: 'release@example.com', scopes: ['androidpublisher'], permissions: [], apps: [PACKAGE] },
        { token: 'mail-only', email: 'carol@example.com', scopes: ['https://www.googleapis.com/auth/gmail.readonly'], permissions: [] },
      ],
    });
    consoleUrl = `${server.url}/_fogbank/console/`;
    const oauth = new googleAuth.OAuth2();
    oauth.setCredentials({ access_token: TOKEN, expiry_date: Date.UTC(2100, 0, 1) });
    client = androidpublisher({ version: 'v3', rootUrl: `${server.url}/`, auth: oauth });
    browser = await launchBrowser();
    ({ page, inert } = await signedInPage(browser, consoleUrl, TOKEN, { viewport: { width: 1400, height: 800 }, acceptDownloads: true }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('an uploaded bundle appears live with its version, certificate fingerprint and SHA-256, and downloads byte-identical', async () => {
    await page.goto(`${consoleUrl}#/publisher`);
    await page.locator('[data-live="on"]').waitFor();
    await page.getByText('No artifacts uploaded yet.').waitFor();
    const bundle = join(work, 'app.aab');
    await writeZip(bundle, jarSign(bundleItems({ packageName: PACKAGE, versionCode: 42, versionName: '4.2.0' }), makeSigner('Console Upload Key')));
    const { data } = await client.internalappsharingartifacts.uploadbundle(
      { packageName: PACKAGE, media: { mimeType: 'application/octet-stream', body: readFileSync(bundle) } },
      { rootUrl: `${server.url}/`, retry: false },
    );
    const row = page.locator(`[data-package="${PACKAGE}"] tr[data-artifact]`);
    await row.waitFor();
    assert.equal(await row.locator('.version').textContent(), '42 (4.2.0)');
    assert.equal(await row.locator('.fingerprint').textContent(), data.certificateFingerprint);
    assert.equal(await row.locator('.sha256').textContent(), data.sha256);
    assert.match((await row.locator('.muted').textContent()) ?? '', /Console Upload Key.*\(upload key\)$/);
    await screenshot(page, 'publisher');
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `Download ${PACKAGE} 4.2.0` }).click()]);
    assert.deepEqual(readFileSync(await download.path()), readFileSync(bundle));
    await page.goto(`${consoleUrl}#/activity`);
    await page.locator('tr[data-method="androidpublisher.internalappsharingartifacts.uploadbundle"]').waitFor();
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.navigations, []);
  });

  it('a principal sees the packages it may publish only; without the scope, none', async () => {
    const artifacts = async (token: string): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${server.url}/_fogbank/console/api/publisher/artifacts`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: await response.json() };
    };
    const own = await artifacts('this-app');
    assert.deepEqual(
      (own.body as { packages: { packageName: string }[] }).packages.map((each) => each.packageName),
      [PACKAGE],
    );
    assert.deepEqual(await artifacts('other-app'), { status: 200, body: { packages: [] } });
    assert.deepEqual(await artifacts('mail-only'), {
      status: 403,
      body: { error: { code: 403, status: 'PERMISSION_DENIED', message: 'carol@example.com may not see artifacts: it needs the androidpublisher scope.' } },
    });
    const policies = await fetch(`${server.url}/_fogbank/console/api/compute/policies`, { headers: { authorization: 'Bearer mail-only' } });
    assert.equal(policies.status, 403);
    // The cluster browser shows a principal what the cluster's RBAC lets its user list: nothing, without a binding.
    const cluster = await fetch(`${server.url}/_fogbank/console/api/cluster/kinds`, { headers: { authorization: 'Bearer this-app' } });
    assert.deepEqual(await cluster.json(), { kinds: [] });
    const events = await fetch(`${server.url}/_fogbank/console/api/cluster/events`, { headers: { authorization: 'Bearer this-app' } });
    assert.equal(events.status, 403);
  });

  it('axe-core finds no serious or critical violation on the publisher view', async () => {
    await assertAccessible(page, consoleUrl, [['#/publisher', '[data-artifact]']]);
  });
});
