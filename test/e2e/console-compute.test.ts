/**
 * The console's compute views in headless Chromium: a policy's rules in priority order, its
 * history with a diff per change (insert, addRule, patchRule, removeRule, patch through the REST
 * API), appearing live; Operations listed; hostile descriptions inert; axe-core clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, screenshot, signedInPage, type watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-compute-admin';
const HOSTILE = '<img src=x onerror=alert("policy")><script>alert(1)</script>';

describe('the web console in headless Chromium: compute', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let inert: ReturnType<typeof watchInert>;

  const compute = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${server.url}/compute/v1/projects/p/${path}`, {
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
    browser = await launchBrowser();
    ({ page, inert } = await signedInPage(browser, consoleUrl, TOKEN, { viewport: { width: 1280, height: 900 } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a policy, its rules in priority order and each change with its diff appear live', async () => {
    await page.goto(`${consoleUrl}#/compute`);
    await page.locator('[data-live="on"]').waitFor();
    await page.getByText('No security policies.').waitFor();
    await compute('POST', 'global/securityPolicies', { name: 'edge', description: HOSTILE });
    const link = page.locator('[data-policy="p/global/edge"]');
    await link.waitFor();
    await page.locator('[data-operation]').first().waitFor();
    assert.equal(await page.locator('[data-operation] .status').first().textContent(), 'DONE');
    await link.click();
    await page.locator('#policy-title', { hasText: 'edge' }).waitFor();
    // Live: the rules arrive while the policy is open.
    await compute('POST', 'global/securityPolicies/edge/addRule', {
      priority: 1000,
      action: 'allow',
      description: HOSTILE,
      match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['10.0.0.0/8'] } },
    });
    await compute('POST', 'global/securityPolicies/edge/addRule', {
      priority: 10,
      action: 'deny(403)',
      match: { expr: { expression: "origin.region_code == 'AU'" } },
    });
    await compute('POST', 'global/securityPolicies/edge/patchRule?priority=1000', { action: 'deny(404)' });
    await page.locator('.history > li[data-method="patchRule"]').waitFor();
    assert.deepEqual(await page.locator('.rules-table tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-priority'))), [
      '10',
      '1000',
      '2147483647',
    ]);
    assert.equal(await page.locator('tr[data-priority="1000"] .action').textContent(), 'deny(404)');
    const patch = page.locator('.history > li[data-method="patchRule"]');
    assert.deepEqual(await patch.locator('.diff li').allTextContents(), ['~ rules[1000].action: "allow" → "deny(404)"']);
    assert.match((await patch.locator('p').textContent()) ?? '', /^patchRule \(priority 1000\) by admin@fogbank\.local at /);
    const added = page.locator('.history > li[data-method="addRule"]').first();
    assert.deepEqual(await added.locator('.diff li').allTextContents(), [
      `+ rules[10]: {"description":"","preview":false,"priority":10,"action":"deny(403)","match":{"expr":{"expression":"origin.region_code == 'AU'"}},"kind":"compute#securityPolicyRule"}`,
    ]);
    await compute('POST', 'global/securityPolicies/edge/removeRule?priority=10');
    await page.locator('.history > li[data-method="removeRule"]').waitFor();
    assert.deepEqual(await page.locator('.history > li[data-method="removeRule"] .diff li').allTextContents(), [
      `- rules[10]: {"description":"","preview":false,"priority":10,"action":"deny(403)","match":{"expr":{"expression":"origin.region_code == 'AU'"}},"kind":"compute#securityPolicyRule"}`,
    ]);
    assert.deepEqual(await page.locator('.history > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-method'))), [
      'removeRule',
      'patchRule',
      'addRule',
      'addRule',
      'insert',
    ]);
    await screenshot(page, 'compute-policy');
    await page.goto(`${consoleUrl}#/activity`);
    for (const method of ['insert', 'addRule', 'patchRule', 'removeRule'])
      await page.locator(`tr[data-method="compute.securityPolicies.${method}"]`).first().waitFor();
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.navigations, []);
  });

  it('axe-core finds no serious or critical violation on the compute views', async () => {
    await assertAccessible(page, consoleUrl, [
      ['#/compute', '[data-policy]'],
      ['#/compute/policy/p%2Fglobal%2Fedge', '.history'],
    ]);
    await page.goto(`${consoleUrl}#/compute`);
    await page.locator('[data-policy]').waitFor();
    await screenshot(page, 'compute');
  });
});
