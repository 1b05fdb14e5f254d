/**
 * The web console in headless Chromium (issue 29): sign-in, the mail view live from the change
 * feed, the HTML body sandboxed and every hostile input inert, downloads byte-identical, a
 * non-admin confined to its own mailbox, faults added in the console failing the next call, the
 * journal showing it, and axe-core's serious and critical rules passing on each view.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { auth, gmail, type gmail_v1 } from '@googleapis/gmail';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signInTicket } from '../../src/console/server/ticket.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { assertAccessible, launchBrowser, screenshot, watchInert } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const TOKEN = 'console-admin';
const CAROL = { token: 'carol-token', email: 'carol@example.com', scopes: ['https://www.googleapis.com/auth/gmail.readonly'], permissions: [] };

/** HOSTILE_HTML tries every way to run script, navigate or escape the frame. */
const HOSTILE_HTML = [
  '<html><head><style>body{color:#123} .x{position:fixed;inset:0;z-index:99999}</style><base href="http://evil.test/"></head><body>',
  '<p id="greeting">Hello from the HTML part</p>',
  '<script>alert("script")</script>',
  '<img src="x" onerror="alert(\'onerror\')">',
  '<img id="remote" src="http://127.0.0.1:9/pixel.png" alt="remote">',
  '<a id="js" href="javascript:alert(\'link\')">click me</a>',
  '<svg xmlns="http://www.w3.org/2000/svg"><script>alert("svg")</script><circle r="4" onload="alert(\'svgload\')"/></svg>',
  '<form action="http://evil.test/"><input name="q"><button id="submit">go</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(\'refresh\')">',
  '<iframe srcdoc="<script>alert(\'nested\')</script>"></iframe>',
  '<div class="x">css escaping its box</div>',
  '</body></html>',
].join('\n');

/** ATTACHMENT is binary, every byte value, so a download that re-encodes it shows. */
const ATTACHMENT = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7 + 3) % 256));
const EVIL_SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(\'attachment\')"><script>alert("svg attachment")</script></svg>';

/** mime builds a multipart message: text and HTML alternatives, a binary attachment, an SVG one with a hostile name. */
function mime(from: string, to: string, subject: string, extraHeaders = ''): string {
  return [
    `From: "<b onmouseover=alert(1)>Mallory</b>" <${from}>`,
    `To: ${to}`,
    extraHeaders,
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="outer"',
    '',
    '--outer',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    '--alt',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello from the text part <script>alert("text")</script>',
    '--alt',
    'Content-Type: text/html; charset=utf-8',
    '',
    HOSTILE_HTML,
    '--alt--',
    '--outer',
    'Content-Type: application/octet-stream',
    'Content-Disposition: attachment; filename="data.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    ATTACHMENT.toString('base64').replace(/(.{76})/g, '$1\r\n'),
    '--outer',
    'Content-Type: image/svg+xml',
    'Content-Disposition: attachment; filename="\\"><img src=x onerror=alert(9)>.svg"',
    '',
    EVIL_SVG,
    '--outer--',
    '',
  ]
    .filter((line, index) => index !== 2 || line !== '')
    .join('\r\n');
}

describe('the web console in headless Chromium: sign-in, mail, control, activity', () => {
  let server: RunningFogbank;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let client: gmail_v1.Gmail;
  let consoleUrl: string;
  let inert: ReturnType<typeof watchInert>;

  before(async () => {
    await ensureConsoleBuilt();
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN, tokens: [CAROL] });
    consoleUrl = `${server.url}/_fogbank/console/`;
    const oauth = new auth.OAuth2();
    oauth.setCredentials({ access_token: TOKEN });
    client = gmail({ version: 'v1', rootUrl: `${server.url}/`, auth: oauth, retry: false });
    browser = await launchBrowser();
    admin = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
    page = await admin.newPage();
    inert = watchInert(page, consoleUrl);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const send = async (subject: string, to = 'bob@example.com', extraHeaders = ''): Promise<string> => {
    const raw = Buffer.from(mime('admin@fogbank.local', to, subject, extraHeaders)).toString('base64url');
    const { data } = await client.users.messages.send({ userId: 'me', requestBody: { raw } });
    return data.id ?? '';
  };

  it('a browser opening the server lands on the console; the banner link signs in once, with an HttpOnly SameSite=Strict cookie', async () => {
    const response = await page.goto(`${server.url}/`);
    assert.equal(response?.url(), consoleUrl);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.goto(`${server.url}/_fogbank/console/sign-in?ticket=${signInTicket(TOKEN)}`);
    assert.equal(page.url(), consoleUrl);
    assert.equal(await page.locator('.principal').textContent(), 'admin@fogbank.local');
    const [cookie] = await admin.cookies(consoleUrl);
    assert.equal(cookie?.name, 'fogbank_console');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    const again = await fetch(`${server.url}/_fogbank/console/sign-in?ticket=${signInTicket(TOKEN)}`, { redirect: 'manual' });
    assert.equal(again.status, 401);
    assert.equal(
      ((await again.json()) as { error: { message: string } }).error.message,
      'This sign-in link was used already: sign in with a token on the console page.',
    );
  });

  it('a message sent with @googleapis/gmail appears in the open mailbox without reload, its HTML sandboxed and inert', async () => {
    await page.goto(`${consoleUrl}#/mail/bob@example.com`);
    await page.locator('[data-live="on"]').waitFor();
    await page.getByRole('searchbox', { name: 'Search messages' }).waitFor();
    const subject = 'Quarterly <img src=x onerror=alert("subject")> "report"';
    await send(subject);
    // The recipient's copy has an id of its own (the send answers the sender's).
    const row = page.locator('[data-message-id]', { hasText: 'Quarterly' });
    await row.waitFor();
    const id = (await row.getAttribute('data-message-id')) ?? '';
    assert.equal(await row.locator('.subject').textContent(), `📎${subject}`);
    assert.match((await row.locator('.from').textContent()) ?? '', /^"<b onmouseover=alert\(1\)>Mallory<\/b>" <admin@fogbank.local>$/);
    assert.equal(await page.locator('[data-mailbox="bob@example.com"] .badge').textContent(), '1 unread');
    await screenshot(page, 'mail-list');
    await row.click();
    assert.equal(page.url(), `${consoleUrl}#/mail/bob%40example.com/${id}`);
    const frame = page.locator('iframe.html-body');
    await frame.waitFor();
    assert.equal(await frame.getAttribute('sandbox'), '', 'sandboxed without allow-scripts, allow-same-origin, allow-popups or allow-forms');
    const body = page.frameLocator('iframe.html-body');
    await body.locator('#greeting').waitFor();
    assert.equal(await page.locator('#message-subject').textContent(), subject);
    // The frame's own policy: no script, no request but inline images, nothing remote until asked.
    const html = await page.evaluate(
      async (url) => {
        const response = await fetch(url);
        return { csp: response.headers.get('content-security-policy'), type: response.headers.get('content-type') };
      },
      `${consoleUrl.replace(/\/$/, '')}/api/mail/bob%40example.com/messages/${id}/html`,
    );
    assert.equal(
      html.csp,
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
    );
    const remoteLoaded = await body.locator('#remote').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth);
    assert.equal(remoteLoaded, 0, 'the remote image is blocked');
    // The frame's own CSS covers its whole box (and only it): activate the link and the form directly.
    await body.locator('#js').dispatchEvent('click');
    await body.locator('#submit').dispatchEvent('click');
    await screenshot(page, 'mail-message');
    // After every attempt: still here, nothing ran.
    await page.getByRole('tab', { name: 'Text' }).click();
    assert.equal(await page.locator('.text-body').textContent(), 'Hello from the text part <script>alert("text")</script>');
    await page.getByRole('tab', { name: 'Headers' }).click();
    await page.locator('table.headers').waitFor();
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
    assert.deepEqual(inert.navigations, []);
    assert.ok(inert.blocked.length > 0, 'the browser reported blocking the body’s script, link and form');
    assert.equal(page.url(), `${consoleUrl}#/mail/bob%40example.com/${id}`);
  });

  it('attachments and the source download byte-identical, never rendered in the console', async () => {
    const id = await send('with attachments');
    await page.goto(`${consoleUrl}#/mail/admin@fogbank.local/${id}`);
    const link = page.locator('a.attachment', { hasText: 'data.bin' });
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.equal(download.suggestedFilename(), 'data.bin');
    assert.deepEqual(readFileSync(await download.path()), ATTACHMENT);
    const svg = page.locator('a.attachment', { hasText: '.svg' });
    assert.equal(await svg.textContent(), `📎 "><img src=x onerror=alert(9)>.svg (${Buffer.byteLength(EVIL_SVG)} B)`);
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), svg.click()]);
    assert.equal(readFileSync(await svgDownload.path(), 'utf8'), EVIL_SVG);
    const [source] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download source (.eml)' }).click()]);
    assert.equal(source.suggestedFilename(), `${id}.eml`);
    const { data } = await client.users.messages.get({ userId: 'me', id, format: 'raw' });
    assert.deepEqual(readFileSync(await source.path()), Buffer.from(data.raw ?? '', 'base64url'));
    assert.deepEqual(inert.dialogs, []);
    assert.deepEqual(inert.errors, []);
  });

  it('search takes the API’s q syntax; Bcc shows on the sender’s copy only', async () => {
    const sentId = await send('bcc check', 'bob@example.com', 'Bcc: dave@example.com');
    const received = await client.users.messages.list({ userId: 'bob@example.com', q: 'subject:"bcc check"' });
    const id = received.data.messages?.[0]?.id ?? '';
    await page.goto(`${consoleUrl}#/mail/bob@example.com`);
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('subject:"bcc check"');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.pager span', { hasText: '1 message' }).waitFor();
    assert.equal(await page.locator('[data-message-id]').count(), 1);
    await page.goto(`${consoleUrl}#/mail/bob@example.com/${id}`);
    await page.locator('#message-subject', { hasText: 'bcc check' }).waitFor();
    assert.equal(await page.locator('[data-bcc]').count(), 0, 'no Bcc on the recipient’s copy');
    await page.goto(`${consoleUrl}#/mail/admin@fogbank.local/${sentId}`);
    assert.equal(await page.locator('[data-bcc]').textContent(), 'dave@example.com');
  });

  it('a fault added in the console makes the next call fail, and the journal marks it', async () => {
    await page.goto(`${consoleUrl}#/control`);
    await page.getByLabel('Rule (JSON, as POST /_fogbank/faults takes it)').fill('{"method":"gmail.users.messages.send","status":429,"times":1}');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('[data-fault-id]').waitFor();
    await screenshot(page, 'control');
    const failure = await send('refused').then(
      () => assert.fail('the send succeeded'),
      (error: { status?: number }) => error,
    );
    assert.equal(failure.status, 429);
    await page.goto(`${consoleUrl}#/activity`);
    const faulted = page.locator('tr.faulted[data-method="gmail.users.messages.send"]');
    await faulted.waitFor();
    assert.equal(await faulted.locator('.status').textContent(), '429');
    // Live: a request made while the view is open appears without reload.
    await client.users.labels.list({ userId: 'me' });
    await page.locator('tr[data-method="gmail.users.labels.list"]').waitFor();
    assert.ok((await page.locator('tr[data-method="gmail.users.messages.send"]:not(.faulted)').count()) >= 3);
    await screenshot(page, 'activity');
  });

  it('a lost stream reconnects and catches up: what happened meanwhile appears once, without reload', async () => {
    await page.goto(`${consoleUrl}#/activity`);
    await page.locator('[data-live="on"]').waitFor();
    await page.locator('table.journal').waitFor();
    const rows = page.locator('tr[data-method="gmail.users.drafts.list"]');
    assert.equal(await rows.count(), 0);
    // Cut every connection (the stream's among them): the browser retries after a second, with Last-Event-ID.
    server.app.server.closeAllConnections();
    await page.locator('[data-live="off"]').waitFor();
    for (let i = 0; i < 3; i++) await client.users.drafts.list({ userId: 'me' });
    await send('while away');
    await page.locator('[data-live="on"]').waitFor();
    await rows.nth(2).waitFor();
    await page.locator('tr[data-method="gmail.users.messages.send"]').first().waitFor();
    assert.equal(await rows.count(), 3, 'each missed request once');
    await page.goto(`${consoleUrl}#/mail/bob@example.com`);
    await page.locator('[data-message-id]', { hasText: 'while away' }).waitFor();
  });

  it('a change without the page’s Origin or CSRF token is refused', async () => {
    const cookies = await admin.cookies(consoleUrl);
    const cookie = cookies.map((each) => `${each.name}=${each.value}`).join('; ');
    const url = `${server.url}/_fogbank/console/api/reset`;
    const noOrigin = await fetch(url, { method: 'POST', headers: { cookie } });
    assert.equal(noOrigin.status, 403);
    const foreign = await fetch(url, { method: 'POST', headers: { cookie, origin: 'http://evil.test' } });
    assert.equal(
      ((await foreign.json()) as { error: { message: string } }).error.message,
      `A console change must come from the console's own page (Origin ${server.url}), not "http://evil.test".`,
    );
    const noCsrf = await fetch(url, { method: 'POST', headers: { cookie, origin: server.url } });
    assert.equal(
      ((await noCsrf.json()) as { error: { message: string } }).error.message,
      "A console change needs the session's CSRF token in the x-fogbank-csrf header.",
    );
  });

  it('a signed-in non-admin sees only its own mailbox', async () => {
    await send('for carol', 'carol@example.com');
    const context = await browser.newContext();
    const carol = await context.newPage();
    const carolInert = watchInert(carol, consoleUrl);
    await carol.goto(consoleUrl);
    await carol.getByLabel('Token').fill(CAROL.token);
    await carol.getByRole('button', { name: 'Sign in' }).click();
    await carol.locator('.principal', { hasText: 'carol@example.com' }).waitFor();
    await carol.locator('[data-mailbox="carol@example.com"]').waitFor();
    await carol.locator('[data-message-id]', { hasText: 'for carol' }).waitFor();
    assert.deepEqual(await carol.locator('[data-mailbox]').evaluateAll((links) => links.map((link) => link.getAttribute('data-mailbox'))), [
      'carol@example.com',
    ]);
    assert.equal(await carol.getByRole('link', { name: 'Activity' }).count(), 0);
    await carol.goto(`${consoleUrl}#/mail/bob@example.com`);
    await carol.getByRole('alert').filter({ hasText: 'carol@example.com may not read the mailbox bob@example.com.' }).waitFor();
    const requests = await carol.evaluate(async () => (await fetch('/_fogbank/console/api/requests')).status);
    assert.equal(requests, 403);
    await carol.getByRole('button', { name: 'Sign out' }).click();
    await carol.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(await carol.evaluate(async () => (await fetch('/_fogbank/console/api/session')).json()), { signedIn: false });
    assert.deepEqual(
      carolInert.errors.filter((error) => !/401|403/.test(error)),
      [],
    );
    await context.close();
  });

  it('works from the keyboard, at 400 px and 1920 px, light and dark', async () => {
    const context = await browser.newContext({ viewport: { width: 400, height: 800 }, colorScheme: 'dark' });
    const narrow = await context.newPage();
    await narrow.goto(consoleUrl);
    await narrow.getByLabel('Token').fill(TOKEN);
    await narrow.keyboard.press('Enter');
    await narrow.locator('.principal').waitFor();
    await narrow.goto(`${consoleUrl}#/mail/bob@example.com`);
    await narrow.locator('[data-message-id]').first().waitFor();
    const fits = (): Promise<boolean> => narrow.evaluate('document.documentElement.scrollWidth <= innerWidth');
    assert.equal(await fits(), true, 'no sideways scrolling at 400 px');
    assert.equal(await narrow.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(13, 17, 23)', 'dark when the OS is');
    // Tab to the first message and open it with Enter.
    await narrow.locator('#q').focus();
    let focused = '';
    for (let step = 0; step < 10 && focused === ''; step++) {
      await narrow.keyboard.press('Tab');
      focused = (await narrow.evaluate("document.activeElement?.getAttribute('data-message-id') ?? ''")) as string;
    }
    assert.notEqual(focused, '', 'a message is reachable with Tab');
    await narrow.keyboard.press('Enter');
    await narrow.locator('#message-subject').waitFor();
    assert.equal(await fits(), true, 'the message fits at 400 px');
    await narrow.getByRole('tab', { name: 'Text' }).focus();
    await narrow.keyboard.press('Enter');
    await narrow.locator('.text-body').waitFor();
    await screenshot(narrow, 'mail-narrow-dark');
    await narrow.setViewportSize({ width: 1920, height: 1080 });
    assert.equal(await fits(), true, 'and at 1920 px');
    await context.close();
  });

  it('axe-core finds no serious or critical violation on any view', async () => {
    const id = (await client.users.messages.list({ userId: 'bob@example.com', maxResults: 1 })).data.messages?.[0]?.id ?? '';
    await assertAccessible(page, consoleUrl, [
      ['#/mail/bob@example.com', '[data-message-id]'],
      [`#/mail/bob@example.com/${id}`, '#message-subject'],
      ['#/activity', 'table.journal'],
      ['#/control', '#fault-rule'],
    ]);
  });
});
