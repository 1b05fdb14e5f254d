/**
 * The console's cluster views in headless Chromium: a ClusterRole created with kubectl appears
 * live in the browser over every served kind, its YAML with managedFields folded; an Event
 * appears live and filters; who-can for `get pods` names the subjects the authorizer allows with
 * the granting binding; what a user may do; HTML in names, labels, annotations and notes inert.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, screenshot, signedInPage, type watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'console-cluster-admin';
const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';

/** inView says whether an element lies wholly inside the viewport (not merely rendered somewhere on the page). */
async function inView(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const height = locator.page().viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y + box.height <= height;
}

describe('the web console in headless Chromium: cluster', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let kubectl: Kubectl;
  let inert: ReturnType<typeof watchInert>;

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN });
    consoleUrl = `${server.url}/_fogbank/console/`;
    kubectl = new Kubectl(server.url, TOKEN);
    browser = await launchBrowser();
    ({ page, inert } = await signedInPage(browser, consoleUrl, TOKEN, { viewport: { width: 1400, height: 900 } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    kubectl?.cleanup();
  });

  it('a ClusterRole created with kubectl appears live; its YAML folds managedFields; hostile labels and annotations stay text', async () => {
    await page.goto(`${consoleUrl}#/cluster/kind/rbac.authorization.k8s.io/clusterroles`);
    await page.locator('[data-live="on"]').waitFor();
    await page.locator('[data-object="admin"]').waitFor();
    // Every served kind is listed (the view is built from the family's registry).
    assert.ok((await page.locator('[data-kind]').count()) >= 5);
    // Written as a manifest: `--resource=pods` would be checked against discovery, and fogbank serves no pods.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    };
    const created = await kubectl.run(['create', '-f', '-'], { input: JSON.stringify(role) });
    assert.equal(created.code, 0, created.stderr);
    const link = page.locator('[data-object="pod-reader"]');
    await link.waitFor();
    const labelled = await kubectl.run(['label', 'clusterrole', 'pod-reader', `note=x`]);
    assert.equal(labelled.code, 0, labelled.stderr);
    const annotated = await kubectl.run(['annotate', 'clusterrole', 'pod-reader', `html=${HOSTILE}`]);
    assert.equal(annotated.code, 0, annotated.stderr);
    await link.click();
    const yaml = page.getByLabel('Object YAML');
    await yaml.waitFor();
    await page.locator('.yaml', { hasText: 'html:' }).first().waitFor();
    const text = (await yaml.textContent()) ?? '';
    assert.match(text, /^apiVersion: rbac\.authorization\.k8s\.io\/v1\nkind: ClusterRole\nmetadata:\n/);
    assert.ok(text.includes(`html: <img src=x onerror=alert(1)><script>alert(2)</script>`), text);
    assert.ok(!text.includes('managedFields'), 'managedFields are folded apart');
    assert.equal(await page.locator('details summary').textContent(), 'managedFields');
    assert.match((await page.locator('details .yaml').textContent()) ?? '', /manager: kubectl-(create|client-side-apply)/);
    await screenshot(page, 'cluster-object');
  });

  it('an Event appears live and filters by namespace, type, reason and regarding object; its note stays text', async () => {
    await page.goto(`${consoleUrl}#/cluster/events`);
    await page.locator('#events-title').waitFor();
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'hostile.1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default' },
      reason: 'BackOff',
      message: HOSTILE,
      type: 'Warning',
    };
    const made = await kubectl.run(['create', '-f', '-'], { input: JSON.stringify(event) });
    assert.equal(made.code, 0, made.stderr);
    const row = page.locator('tr[data-event="hostile.1"]');
    await row.waitFor();
    assert.equal(await row.locator('.message').textContent(), HOSTILE);
    assert.equal(await row.locator('.reason').textContent(), 'BackOff');
    await page.locator('[data-filter="type"]').fill('Normal');
    await row.waitFor({ state: 'detached' });
    await page.locator('[data-filter="type"]').fill('warning');
    await page.locator('[data-filter="regarding"]').fill('Pod/web-0');
    await page.locator('[data-filter="namespace"]').fill('default');
    await row.waitFor();
    await page.locator('[data-filter="namespace"]').fill('kube-system');
    await row.waitFor({ state: 'detached' });
    await page.locator('[data-filter="namespace"]').fill('');
    await row.waitFor();
    await screenshot(page, 'cluster-events');
  });

  it('who-can `get pods` lists the subjects the authorizer allows, each with its granting binding; a user’s grants are listed', async () => {
    for (const args of [
      ['create', 'clusterrolebinding', 'alice-reads-pods', '--clusterrole=pod-reader', '--user=alice'],
      ['create', 'clusterrole', 'event-reader', '--verb=get', '--resource=events'],
      ['create', 'clusterrolebinding', 'bob-reads-events', '--clusterrole=event-reader', '--user=bob'],
      ['create', 'clusterrolebinding', 'ops-read-pods', '--clusterrole=pod-reader', '--group=ops'],
    ]) {
      const result = await kubectl.run(args);
      assert.equal(result.code, 0, result.stderr);
    }
    await page.goto(`${consoleUrl}#/cluster/rbac`);
    await page.locator('[data-ask="verb"]').fill('get');
    await page.locator('[data-ask="resource"]').fill('pods');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.who-can li').first().waitFor();
    const subjects = await page.locator('.who-can li').evaluateAll((items) => items.map((item) => item.getAttribute('data-subject')));
    assert.ok(subjects.includes('User alice'));
    assert.ok(subjects.includes('Group ops'));
    assert.ok(subjects.includes('Group system:masters'));
    assert.ok(!subjects.includes('User bob'), 'bob may read events, not pods');
    assert.equal(
      await page.locator('[data-subject="User alice"] .muted').textContent(),
      'RBAC: allowed by ClusterRoleBinding "alice-reads-pods" of ClusterRole "pod-reader" to User "alice"',
    );
    // The same answer kubectl gets from the server for each subject listed and for bob.
    for (const [as, expected] of [
      [['--as=alice'], 'yes'],
      [['--as=bob'], 'no'],
      [['--as=carol', '--as-group=ops'], 'yes'],
    ] as const) {
      const answer = await kubectl.run(['auth', 'can-i', 'get', 'pods', ...as]);
      assert.equal(answer.stdout.trim(), expected, `${as.join(' ')}: ${answer.stderr}`);
    }
    await page.getByLabel('Name', { exact: true }).fill('bob');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('.grant p').first().waitFor();
    // A signed-in user is in system:authenticated, as on a real server.
    assert.deepEqual(await page.locator('.grant p').allTextContents(), [
      'ClusterRoleBinding "bob-reads-events" of ClusterRole "event-reader" to User "bob"',
      'ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
      'ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
      'ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:authenticated"',
    ]);
    await screenshot(page, 'cluster-rbac');
    await page.goto(`${consoleUrl}#/activity`);
    for (const method of ['create clusterroles', 'create clusterrolebindings', 'create events', 'patch clusterroles'])
      await page.locator(`tr[data-method="${method}"]`).first().waitFor();
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.navigations, []);
  });

  it('lists each kind once (subresources and versions are on its page), filters the list, and shows a kind chosen far down at once', async () => {
    await page.goto(`${consoleUrl}#/cluster/kind/apps/deployments`);
    await page.locator('[data-kind-facts]').waitFor();
    const api = (await (await fetch(`${server.url}/_fogbank/console/api/cluster/kinds`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      kinds: { group: string; resource: string; kind: string }[];
    };
    const listed = await page.locator('[data-kind]').evaluateAll((links) => links.map((link) => link.getAttribute('data-kind')));
    assert.deepEqual(listed, [...new Set(listed)], 'no kind twice');
    // The same kinds the console API lists (grouped by API group on the page).
    assert.deepEqual([...listed].sort(), api.kinds.map((kind) => `${kind.group}/${kind.resource}`).sort());
    assert.ok(listed.length >= 40, `every served kind: ${listed.length}`);
    const labels = await page.locator('[data-kind]').allTextContents();
    assert.ok(!labels.some((label) => label.startsWith('Scale ')), 'a scale subresource is not a kind');
    assert.equal(labels.filter((label) => label.startsWith('Deployment ')).length, 1);
    assert.match(
      (await page.locator('[data-kind-facts]').textContent()) ?? '',
      /^apps\/v1 · deployments \(deploy\) · namespaced · subresources: (scale, status|status, scale)$/,
    );

    // The filter: by kind, plural, short name or group, any case; Enter opens the first match.
    const filter = page.getByLabel('Filter kinds');
    const visible = () => page.locator('[data-kind]').evaluateAll((links) => links.map((link) => link.getAttribute('data-kind')));
    await filter.fill('DEPLOY');
    assert.deepEqual(await visible(), ['apps/deployments']);
    await filter.fill('rbac role');
    assert.deepEqual((await visible()).sort(), [
      'rbac.authorization.k8s.io/clusterrolebindings',
      'rbac.authorization.k8s.io/clusterroles',
      'rbac.authorization.k8s.io/rolebindings',
      'rbac.authorization.k8s.io/roles',
    ]);
    await filter.fill('cm');
    assert.deepEqual(await visible(), ['/configmaps']);
    await filter.press('Enter');
    await page.waitForURL(/#\/cluster\/kind\/-\/configmaps$/);
    await filter.fill('no-such-kind');
    await page.getByText('No kind matches.').waitFor();
    await filter.fill('');
    assert.equal((await visible()).length, listed.length);

    // The list scrolls on its own: choosing its last kind leaves the page where it is, the kind's objects in view.
    const last = page.locator('[data-kind]').last();
    await last.scrollIntoViewIfNeeded();
    await last.click();
    await page.locator('#objects-title', { hasText: labels.at(-1)?.split(' ')[0] ?? '' }).waitFor();
    assert.ok(await inView(page.locator('#objects-title')), "the kind's title is in view");
    assert.ok(await inView(last), 'and so is the kind chosen');
    assert.equal(await last.getAttribute('aria-current'), 'page');
    // A deep link to a kind down the list: the list shows it chosen, the page is not scrolled.
    const made = await kubectl.run(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    assert.equal(made.code, 0, made.stderr);
    await page.goto(`${consoleUrl}#/cluster/events`);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.goto(`${consoleUrl}#/cluster/kind/apps/deployments/default`);
    await page.locator('[data-object="web"]').waitFor();
    assert.equal(await page.evaluate('window.scrollY'), 0);
    assert.ok(await inView(page.locator('[data-kind="apps/deployments"]')));
    await screenshot(page, 'cluster-kinds');
  });

  it('axe-core finds no serious or critical violation on the cluster views', async () => {
    await assertAccessible(page, consoleUrl, [
      ['#/cluster/events', 'tr[data-event]'],
      ['#/cluster/kind/rbac.authorization.k8s.io/clusterroles', '[data-object]'],
      ['#/cluster/object/rbac.authorization.k8s.io/clusterroles/-/pod-reader', '.yaml'],
      ['#/cluster/rbac', '[data-ask="verb"]'],
    ]);
  });
});
