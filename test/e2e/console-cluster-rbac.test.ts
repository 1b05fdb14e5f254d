/**
 * The console's cluster browser for a signed-in non-admin, in headless Chromium: a token bound by
 * a RoleBinding to the `view` ClusterRole in team-a sees team-a's ConfigMaps and Events but not
 * team-b's, and not Secrets (`view` excludes them); kinds it may list nowhere are not listed; a
 * deep link to a forbidden object answers the apiserver's Forbidden text as the console's 403;
 * who-can is the admin's and may-do answers the principal about itself only; axe-core clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-cluster-rbac-admin';
const DEV = { token: 'team-a-viewer', email: 'dev@example.com', scopes: ['https://www.googleapis.com/auth/gmail.readonly'], permissions: [] };

describe('the web console in headless Chromium: what a non-admin cluster user sees', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let inert: ReturnType<typeof watchInert>;

  const kube = async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 201, await response.text());
  };
  const consoleApi = (path: string, token = DEV.token) =>
    fetch(`${consoleUrl}api/cluster/${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    }));

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN, tokens: [DEV] });
    consoleUrl = `${server.url}/_fogbank/console/`;
    for (const namespace of ['team-a', 'team-b']) {
      await kube('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      await kube(`/api/v1/namespaces/${namespace}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${namespace}-config` },
        data: { team: namespace },
      });
      await kube(`/api/v1/namespaces/${namespace}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${namespace}-secret` },
        stringData: { password: 'hunter2' },
      });
      await kube(`/api/v1/namespaces/${namespace}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${namespace}-event` },
        involvedObject: { kind: 'ConfigMap', namespace, name: `${namespace}-config` },
        reason: `Seen${namespace === 'team-a' ? 'A' : 'B'}`,
        message: `an event of ${namespace}`,
        type: 'Normal',
      });
    }
    await kube('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'dev-views' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: DEV.email }],
    });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    inert = watchInert(page, consoleUrl);
    await page.goto(consoleUrl);
    await page.getByLabel('Token').fill(DEV.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.principal', { hasText: DEV.email }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lists only the kinds it may list, and team-a's ConfigMaps but not team-b's", async () => {
    await page.goto(`${consoleUrl}#/cluster/kind/-/configmaps`);
    await page.locator('[data-object="team-a-config"]').waitFor();
    assert.equal(await page.locator('[data-kind="/configmaps"]').count(), 1);
    assert.equal(await page.locator('[data-kind="/secrets"]').count(), 0, '`view` does not grant secrets');
    assert.equal(await page.locator('[data-kind="rbac.authorization.k8s.io/clusterroles"]').count(), 0);
    assert.deepEqual(await page.locator('[data-object]').allTextContents(), ['team-a/team-a-config']);
    // The namespace choice is where it may list ConfigMaps.
    assert.deepEqual(await page.getByLabel('Namespace').locator('option').allTextContents(), ['all', 'team-a']);
    await page.getByLabel('Namespace').selectOption('team-a');
    await page.locator('[data-object="team-a-config"]').waitFor();
    await page.locator('[data-object="team-a-config"]').click();
    await page.locator('.yaml', { hasText: 'team: team-a' }).waitFor();
    // The server answers the same: kinds the principal may list, with where.
    const kinds = await consoleApi('kinds');
    assert.equal(kinds.status, 200);
    const configmaps = (kinds.body['kinds'] as Record<string, unknown>[]).find((kind) => kind['resource'] === 'configmaps');
    assert.deepEqual(configmaps?.['namespaces'], ['team-a']);
    assert.ok(!(kinds.body['kinds'] as Record<string, unknown>[]).some((kind) => kind['resource'] === 'secrets'));
  });

  it("a deep link to team-b's ConfigMap or team-a's Secret answers the console's 403 with the apiserver's text", async () => {
    await page.goto(`${consoleUrl}#/cluster/object/-/configmaps/team-b/team-b-config`);
    await page
      .getByRole('alert')
      .filter({
        hasText: 'configmaps "team-b-config" is forbidden: User "dev@example.com" cannot get resource "configmaps" in API group "" in the namespace "team-b"',
      })
      .waitFor();
    assert.equal(await page.locator('.yaml').count(), 0);
    await page.goto(`${consoleUrl}#/cluster/object/-/secrets/team-a/team-a-secret`);
    await page
      .getByRole('alert')
      .filter({
        hasText: 'secrets "team-a-secret" is forbidden: User "dev@example.com" cannot get resource "secrets" in API group "" in the namespace "team-a"',
      })
      .waitFor();
    assert.equal(await page.locator('.yaml').count(), 0);
    // Forbidden before not found, as the apiserver authorizes first.
    const missing = await consoleApi('object?resource=configmaps&namespace=team-b&name=nothing-here');
    assert.deepEqual(missing, {
      status: 403,
      body: {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'configmaps "nothing-here" is forbidden: User "dev@example.com" cannot get resource "configmaps" in API group "" in the namespace "team-b"',
        },
      },
    });
    const listB = await consoleApi('objects?resource=configmaps&namespace=team-b');
    assert.equal(listB.status, 403);
    assert.equal(
      (listB.body['error'] as Record<string, unknown>)['message'],
      'configmaps is forbidden: User "dev@example.com" cannot list resource "configmaps" in API group "" in the namespace "team-b"',
    );
    const secrets = await consoleApi('objects?resource=secrets');
    assert.equal(secrets.status, 403);
    assert.equal(
      (secrets.body['error'] as Record<string, unknown>)['message'],
      'secrets is forbidden: User "dev@example.com" cannot list resource "secrets" in API group "" at the cluster scope',
    );
  });

  it("shows team-a's Events only; who-can is the admin's and may-do answers about itself", async () => {
    await page.goto(`${consoleUrl}#/cluster/events`);
    await page.locator('[data-event="team-a-event"]').waitFor();
    assert.deepEqual(await page.locator('[data-event]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event'))), ['team-a-event']);
    await page.goto(`${consoleUrl}#/cluster/rbac`);
    await page.locator('.may-do .grant').first().waitFor();
    assert.equal(await page.locator('#who-can-title').count(), 0);
    assert.equal(await page.locator('#may-do-title').textContent(), 'What may I do?');
    assert.ok(
      (await page.locator('.may-do .grant > p').allTextContents()).includes('RoleBinding "dev-views/team-a" of ClusterRole "view" to User "dev@example.com"'),
    );
    const whoCan = await consoleApi('who-can?verb=get&resource=configmaps');
    assert.equal(whoCan.status, 403);
    const other = await consoleApi('may-do?kind=User&name=someone@example.com');
    assert.deepEqual(other, {
      status: 403,
      body: {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'dev@example.com may ask only what it may do itself (User "dev@example.com"): asking about other subjects takes the admin token.',
        },
      },
    });
    // The admin still sees every namespace's objects.
    const all = await consoleApi('objects?resource=configmaps', TOKEN);
    assert.deepEqual(
      (all.body['objects'] as Record<string, unknown>[])
        .map((object) => `${String(object['namespace'])}/${String(object['name'])}`)
        .filter((name) => name.includes('-config')),
      ['team-a/team-a-config', 'team-b/team-b-config'],
    );
    await assertAccessible(page, consoleUrl, [
      ['#/cluster/kind/-/configmaps', '[data-object]'],
      ['#/cluster/rbac', '.may-do .grant'],
    ]);
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(
      inert.errors.filter((error) => !/403 \(Forbidden\)/.test(error)),
      [],
    );
    assert.deepEqual(inert.navigations, []);
  });
});
