/**
 * The console with the real gcloud in headless Chromium: a `rules update` run by gcloud shows in
 * the open policy's history with its diff, and a fault rule added through the control view's form
 * makes gcloud's next call fail with gcloud's own error text, the journal marking that request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { launchBrowser, signedInPage, type watchInert } from '../harness/browser.ts';
import { skipUnless } from '../harness/clients.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'console-gcloud-admin';

describe('the web console in headless Chromium with the real gcloud', { skip: skipUnless('gcloud') }, () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let inert: ReturnType<typeof watchInert>;

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    gcloud = new Gcloud(server.url, TOKEN);
    consoleUrl = `${server.url}/_fogbank/console/`;
    browser = await launchBrowser();
    ({ page, inert } = await signedInPage(browser, consoleUrl, TOKEN, { viewport: { width: 1280, height: 900 } }));
  });
  after(async () => {
    await browser?.close();
    gcloud?.dispose();
    await server?.close();
  });

  it('gcloud rules update shows in the open policy history with its diff', async () => {
    const created = await gcloud.run('compute', 'security-policies', 'create', 'edge', '--description=edge rules');
    assert.equal(created.code, 0, created.stderr);
    const rule = await gcloud.run(
      'compute',
      'security-policies',
      'rules',
      'create',
      '1000',
      '--security-policy=edge',
      '--action=allow',
      '--src-ip-ranges=10.0.0.0/8',
    );
    assert.equal(rule.code, 0, rule.stderr);
    await page.goto(`${consoleUrl}#/compute/policy/p%2Fglobal%2Fedge`);
    await page.locator('[data-live="on"]').waitFor();
    await page.locator('.history > li[data-method="addRule"]').waitFor();
    assert.equal(await page.locator('.history > li[data-method="patchRule"]').count(), 0);
    const updated = await gcloud.run('compute', 'security-policies', 'rules', 'update', '1000', '--security-policy=edge', '--action=deny-404');
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stderr, /^Updated \[http:\/\/127\.0\.0\.1:\d+\/compute\/v1\/projects\/p\/global\/securityPolicies\/edge\]\.\n$/);
    // Live: the open view shows the change without a reload.
    const patch = page.locator('.history > li[data-method="patchRule"]');
    await patch.waitFor();
    assert.deepEqual(await patch.locator('.diff li').allTextContents(), ['~ rules[1000].action: "allow" → "deny(404)"']);
    assert.match((await patch.locator('p').textContent()) ?? '', /^patchRule \(priority 1000\) by admin@fogbank\.local at /);
    await page.locator('tr[data-priority="1000"] .action', { hasText: 'deny(404)' }).waitFor();
    assert.deepEqual(inert.errors, []);
  });

  it('a fault rule added in the control view makes the next gcloud call fail, and the journal marks it', async () => {
    await page.goto(`${consoleUrl}#/control`);
    await page.getByText('No fault rules.').waitFor();
    await page.getByLabel('Rule (JSON, as POST /_fogbank/faults takes it)').fill('{"method":"compute.securityPolicies.get","status":404,"times":1}');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('[data-fault-id]').waitFor();
    assert.equal(server.faults.list().length, 1);
    const described = await gcloud.run('compute', 'security-policies', 'describe', 'edge', '--format=value(name)');
    assert.equal(described.code, 1, described.stdout);
    assert.equal(described.stderr, 'ERROR: (gcloud.compute.security-policies.describe) Could not fetch resource:\n - Requested entity was not found.\n\n');
    assert.deepEqual(server.faults.list(), [], 'the rule fired its one time');
    // The next call goes through again.
    const again = await gcloud.run('compute', 'security-policies', 'describe', 'edge', '--format=value(name)');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'edge\n');
    await page.goto(`${consoleUrl}#/activity`);
    const faulted = page.locator('tr.faulted[data-method="compute.securityPolicies.get"]');
    await faulted.waitFor();
    assert.equal(await faulted.count(), 1);
    assert.equal(await faulted.locator('.status').textContent(), '404');
    assert.match((await faulted.locator('.fault-mark').textContent()) ?? '', /^⚡ /);
    assert.equal(await page.locator('tr:not(.faulted)[data-method="compute.securityPolicies.get"] .status').first().textContent(), '200');
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.navigations, []);
  });
});
