/**
 * The console's sessions (issue 44): over https:// on fogbank's one port the page signs in (the
 * banner's link and the token form, by 127.0.0.1 and by localhost, names the certificate
 * carries), makes a control change and signs out, in headless Chromium; a page of another origin,
 * or of the same host over the other scheme, is refused. Sessions are bounded per token: one
 * token signed in 1,000 times signs nobody else out. And the console shows a token what the APIs
 * would let it read, scopes included: no Gmail scope, no mailbox (the Gmail API answers it 403).
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signInTicket } from '../../src/console/server/ticket.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { launchBrowser, watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-sessions-admin';
/** DANA may publish and holds a compute read permission, but her token carries no Gmail and no compute scope. */
const DANA = { token: 'dana-token', email: 'dana@example.com', scopes: ['androidpublisher'], permissions: ['compute.securityPolicies.get'] };
/** MALLORY holds a token and nothing else: enough to sign in, over and over. */
const MALLORY = { token: 'mallory-token', email: 'mallory@example.com', scopes: [], permissions: [] };

/** httpsCall sends one request over HTTPS trusting fogbank's CA. */
function httpsCall(url: string, ca: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { method, ca, headers, agent: false }, (response) => {
      let text = '';
      response.on('data', (data: Buffer) => (text += data.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** cookieOf is the `name=value` of a sign-in answer's session cookie. */
const cookieOf = (response: Response): string => (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

describe('console sessions: https on the same port, bounded per token, scopes as the APIs check them', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let https: string;
  let ca: string;

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN, tokens: [DANA, MALLORY] });
    const material = await server.tlsMaterial();
    assert.ok(server.httpsUrl !== undefined && material !== undefined, 'fogbank serves HTTPS on its port by default');
    https = server.httpsUrl;
    ca = material.trust;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** newPage is a fresh browser profile's page (fogbank's CA is not in Chromium's store: its certificate errors are waived). */
  const newPage = async (): Promise<{ page: Page; inert: ReturnType<typeof watchInert> }> => {
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } })).newPage();
    return { page, inert: watchInert(page, `${https.replace('127.0.0.1', 'localhost')}/_fogbank/console/`) };
  };

  it('over https the banner link signs in, a control change and sign-out go through, with a Secure cookie', async () => {
    const consoleUrl = `${https}/_fogbank/console/`;
    const { page } = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${consoleUrl}sign-in?ticket=${signInTicket(TOKEN)}`);
    await page.locator('.principal').waitFor();
    const [cookie] = await page.context().cookies(consoleUrl);
    assert.equal(cookie?.secure, true, 'a session made over HTTPS is never sent over plain HTTP');
    assert.equal(cookie?.httpOnly, true);

    // A control change: freeze the clock, then add a fault rule; the admin API sees both.
    await page.goto(`${consoleUrl}#/control`);
    await page.getByRole('button', { name: 'Freeze' }).click();
    await page.getByRole('button', { name: 'Unfreeze' }).waitFor();
    const clock = (await (await fetch(`${server.url}/_fogbank/clock`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { frozen: boolean };
    assert.equal(clock.frozen, true);
    await page.getByLabel('Rule (JSON, as POST /_fogbank/faults takes it)').fill('{"method":"gmail.users.messages.send","status":503,"times":1}');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('[data-fault-id]').first().waitFor();
    const faults = (await (await fetch(`${server.url}/_fogbank/faults`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { faults: unknown[] };
    assert.equal(faults.faults.length, 1);
    await page.getByRole('button', { name: /^Remove rule / }).click();
    await page.locator('[data-fault-id]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('[role="alert"]').count(), 0, (await page.locator('[role="alert"]').allTextContents()).join('; '));
    await page.getByRole('button', { name: 'Unfreeze' }).click();
    await page.getByRole('button', { name: 'Freeze' }).waitFor();

    // Sign-out ends the session on the server: a reload shows the sign-in form.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    await page.reload();
    await page.getByLabel('Token').waitFor();
    assert.equal(await page.locator('.principal').count(), 0);
    assert.deepEqual(errors, []);
  });

  it('over https by localhost (a name the certificate carries) the token form signs in and out', async () => {
    const consoleUrl = `${https.replace('127.0.0.1', 'localhost')}/_fogbank/console/`;
    const { page, inert } = await newPage();
    await page.goto(consoleUrl);
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.principal').waitFor();
    assert.equal(await page.locator('.principal').textContent(), 'admin@fogbank.local');
    await page.reload();
    await page.locator('.principal').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    await page.reload();
    await page.getByLabel('Token').waitFor();
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.dialogs, []);
  });

  it("refuses another origin, and the same host over the other scheme, on either scheme; accepts each scheme's own", async () => {
    const body = JSON.stringify({ token: MALLORY.token });
    const host = new URL(server.url).host;
    const post = (origin: string) => httpsCall(`${https}/_fogbank/console/api/session`, ca, 'POST', { origin, 'content-type': 'application/json' }, body);
    assert.equal((await post(`https://${host}`)).status, 201);
    assert.equal((await post(`https://${host.replace('127.0.0.1', 'localhost')}`)).status, 403, 'the Host said 127.0.0.1');
    const crossScheme = await post(`http://${host}`);
    assert.equal(crossScheme.status, 403);
    assert.equal(
      (JSON.parse(crossScheme.body) as { error: { message: string } }).error.message,
      `A console change must come from the console's own page (Origin https://${host}), not "http://${host}".`,
    );
    assert.equal((await post('https://evil.test')).status, 403);
    const overHttp = (origin: string) =>
      fetch(`${server.url}/_fogbank/console/api/session`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body });
    assert.equal((await overHttp(server.url)).status, 201);
    assert.equal((await overHttp(`https://${host}`)).status, 403, 'a plain-HTTP request is not from an https page');
  });

  it("one token signed in 1,000 times keeps a bounded number of its own sessions and signs no one else's out", async () => {
    const signIn = (token: string) =>
      fetch(`${server.url}/_fogbank/console/api/session`, {
        method: 'POST',
        headers: { origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    const signedIn = async (cookie: string): Promise<boolean> =>
      ((await (await fetch(`${server.url}/_fogbank/console/api/session`, { headers: { cookie } })).json()) as { signedIn: boolean }).signedIn;
    const admin = cookieOf(await signIn(TOKEN));
    const dana = cookieOf(await signIn(DANA.token));
    const mallory: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const answer = await signIn(MALLORY.token);
      assert.equal(answer.status, 201);
      mallory.push(cookieOf(answer));
    }
    assert.equal(await signedIn(admin), true, "the admin's session survives");
    assert.equal(await signedIn(dana), true, "another principal's session survives");
    assert.equal(await signedIn(mallory.at(-1) ?? ''), true, 'the newest session of the token works');
    assert.equal(await signedIn(mallory[0] ?? ''), false, 'its own oldest went');
  });

  it('a token without a Gmail scope sees no mailbox, without a compute scope no policies: the APIs answer both 403', async () => {
    // Dana's mailbox holds a message.
    const raw = Buffer.from(`From: admin@fogbank.local\r\nTo: ${DANA.email}\r\nSubject: for dana\r\n\r\nhi\r\n`).toString('base64url');
    const sent = await fetch(`${server.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ raw }),
    });
    assert.equal(sent.status, 200);
    const bearer = { authorization: `Bearer ${DANA.token}` };
    assert.equal((await fetch(`${server.url}/gmail/v1/users/me/messages`, { headers: bearer })).status, 403, 'the Gmail API refuses the token');
    assert.equal((await fetch(`${server.url}/compute/v1/projects/p/global/securityPolicies/x`, { headers: bearer })).status, 403, 'so does compute');
    const consoleApi = (path: string) => fetch(`${server.url}/_fogbank/console/api/${path}`, { headers: bearer });
    const mailboxes = await consoleApi('mail/mailboxes');
    assert.equal(mailboxes.status, 403);
    assert.equal(
      ((await mailboxes.json()) as { error: { message: string } }).error.message,
      "dana@example.com may not read mail: its token carries none of the Gmail API's read scopes (https://mail.google.com/, gmail.modify, gmail.readonly, gmail.metadata).",
    );
    assert.equal((await consoleApi(`mail/${DANA.email}/messages`)).status, 403);
    assert.equal((await consoleApi('compute/policies')).status, 403);
    assert.equal((await consoleApi('publisher/artifacts')).status, 200, 'the scope it holds opens its view');

    // In the browser, over https: the mail view says why and lists nothing.
    const { page, inert } = await newPage();
    await page.goto(`${https}/_fogbank/console/`);
    await page.getByLabel('Token').fill(DANA.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.principal').waitFor();
    await page.locator('.mailboxes [role="alert"]').waitFor();
    assert.match((await page.locator('.mailboxes [role="alert"]').textContent()) ?? '', /may not read mail/);
    assert.equal(await page.locator('[data-mailbox]').count(), 0);
    assert.equal(await page.getByText('for dana').count(), 0);
    assert.deepEqual(inert.dialogs, []);
  });
});
