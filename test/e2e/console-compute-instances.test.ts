/**
 * The console's instances, managed instance groups and backend services views in headless
 * Chromium: what the REST API made (a template, an instance, a group of 2, a backend service with
 * a backend and an edge policy) appears; the group is resized to 3 from the console and its third
 * instance appears live; the backend service's policy links to the policy's view, which lists the
 * service, and is detached from the console; an instance is stopped from the console; the API's
 * refusal shows as its own message; axe-core clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, screenshot, signedInPage, type watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-instances-admin';
const ZONE = 'p/zones/us-central1-a';

describe('the web console in headless Chromium: instances, managed instance groups, backend services', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let inert: ReturnType<typeof watchInert>;

  const compute = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${server.url}/compute/v1/projects/${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 200, JSON.stringify(answer));
    return answer;
  };

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN, operations: 'instant' });
    consoleUrl = `${server.url}/_fogbank/console/`;
    await compute('POST', 'p/global/instanceTemplates', {
      name: 'web-tpl',
      properties: { machineType: 'e2-small', networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }] },
    });
    await compute('POST', `${ZONE}/instances?sourceInstanceTemplate=global/instanceTemplates/web-tpl`, { name: 'vm1', labels: { tier: 'front' } });
    await compute('POST', `${ZONE}/instanceGroupManagers`, {
      name: 'mig',
      instanceTemplate: 'global/instanceTemplates/web-tpl',
      baseInstanceName: 'web',
      targetSize: 2,
    });
    await compute('POST', 'p/global/securityPolicies', { name: 'pol' });
    await compute('POST', 'p/global/securityPolicies', { name: 'edge', type: 'CLOUD_ARMOR_EDGE' });
    await compute('POST', 'p/global/backendServices', {
      name: 'web',
      securityPolicy: 'global/securityPolicies/pol',
      edgeSecurityPolicy: 'global/securityPolicies/edge',
    });
    browser = await launchBrowser();
    ({ page, inert } = await signedInPage(browser, consoleUrl, TOKEN, { viewport: { width: 1280, height: 900 } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the instances, the group and the backend service the API made', async () => {
    await page.goto(`${consoleUrl}#/compute`);
    await page.locator('[data-live="on"]').waitFor();
    const vm = page.locator(`[data-instance="${ZONE}/vm1"]`);
    await vm.waitFor();
    assert.deepEqual(await vm.locator('td').allTextContents(), [
      'vm1',
      'p',
      'us-central1-a',
      'RUNNING',
      'e2-small',
      '10.128.0.2',
      '203.0.113.1',
      'web-tpl',
      'tier=front',
    ]);
    // The group's two instances are listed with the rest.
    assert.equal(await page.locator('[data-instance]').count(), 3);
    assert.match((await page.locator(`[data-group="${ZONE}/mig"]`).textContent()) ?? '', /^mig p · us-central1-a · 2 of 2 instances · web-tpl · stable$/);
    assert.match((await page.locator('[data-backend="p/global/web"]').textContent()) ?? '', /· policy pol · edge policy edge$/);
  });

  it('resizes the group to 3 from the console: the Operation is the API resize, the third instance appears live', async () => {
    await page.locator(`[data-group="${ZONE}/mig"] a`).click();
    await page.locator('#group-title', { hasText: 'mig' }).waitFor();
    assert.equal(await page.locator('tr[data-managed]').count(), 2);
    assert.equal(
      await page.locator('[data-update-policy]').textContent(),
      'type OPPORTUNISTIC · minimal action REPLACE · max surge 1 · max unavailable 1 · replacement SUBSTITUTE',
    );
    await page.getByLabel('New target size').fill('3');
    await page.getByRole('button', { name: 'Resize' }).click();
    await page.locator('[data-action-status]', { hasText: 'compute.instanceGroupManagers.resize' }).waitFor();
    // The resize marks the new instance CREATING and its Operation makes it: the view follows both writes.
    await page.waitForFunction(
      "[...document.querySelectorAll('tr[data-managed]')].map((row) => row.querySelector('.action').textContent + ' ' + row.querySelector('.status').textContent).join() === 'NONE RUNNING,NONE RUNNING,NONE RUNNING'",
    );
    assert.equal(await page.locator('[data-target-size]').textContent(), '3');
    const listed = (await compute('POST', `${ZONE}/instanceGroupManagers/mig/listManagedInstances`))['managedInstances'] as unknown[];
    assert.equal(listed.length, 3);
    await screenshot(page, 'compute-group');
    assert.deepEqual(inert.errors, []);
    // The API's refusal is shown as the API phrased it.
    await page.getByLabel('New target size').fill('-1');
    await page.getByRole('button', { name: 'Resize' }).click();
    await page.locator('.problem', { hasText: "Invalid value for field 'size': '-1'. Target size must be non-negative." }).waitFor();
  });

  it('links the backend service to its policies, the policy lists the service, and the console detaches it', async () => {
    await page.goto(`${consoleUrl}#/compute/backend/p%2Fglobal%2Fweb`);
    await page.locator('#backend-title', { hasText: 'web' }).waitFor();
    assert.equal(await page.locator('[data-attached="edgeSecurityPolicy"]').textContent(), 'edge');
    await page.locator('[data-attached="securityPolicy"]').click();
    await page.locator('#policy-title', { hasText: 'pol' }).waitFor();
    assert.match((await page.locator('[data-used-by="p/global/web"]').textContent()) ?? '', /^web p · global · backend policy$/);
    await page.goBack();
    await page.locator('#backend-title', { hasText: 'web' }).waitFor();
    await page.locator('[data-action="detach-securityPolicy"]').click();
    await page.locator('[data-action-status]', { hasText: 'setSecurityPolicy' }).waitFor();
    await page.locator('[data-attached="securityPolicy"]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('[data-attached="edgeSecurityPolicy"]').textContent(), 'edge');
    assert.equal((await compute('GET', 'p/global/backendServices/web'))['securityPolicy'], undefined);
    await screenshot(page, 'compute-backend');
    await page.goto(`${consoleUrl}#/compute/policy/p%2Fglobal%2Fpol`);
    await page.getByText('No backend service attaches this policy.').waitFor();
  });

  it('stops an instance from the console, and its status follows live', async () => {
    await page.goto(`${consoleUrl}#/compute/instance/${encodeURIComponent(`${ZONE}/vm1`)}`);
    await page.locator('#instance-title', { hasText: 'vm1' }).waitFor();
    await page.locator('[data-action="stop"]').click();
    await page.locator('[data-fact="Status"] .status', { hasText: 'TERMINATED' }).waitFor();
    assert.equal((await compute('GET', `${ZONE}/instances/vm1`))['status'], 'TERMINATED');
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.navigations, []);
  });

  it('axe-core finds no serious or critical violation on these views', async () => {
    await assertAccessible(page, consoleUrl, [
      ['#/compute', '[data-instance]'],
      [`#/compute/group/${encodeURIComponent(`${ZONE}/mig`)}`, 'tr[data-managed]'],
      ['#/compute/backend/p%2Fglobal%2Fweb', '[data-slot]'],
      [`#/compute/instance/${encodeURIComponent(`${ZONE}/vm1`)}`, '[data-action="start"]'],
    ]);
  });
});
