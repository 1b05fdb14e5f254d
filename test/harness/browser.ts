/**
 * Headless Chromium for the console's end-to-end tests: Debian's `chromium` driven by
 * playwright-core (no browser download), with the flags that keep it off the network, one
 * browser per test file. `watchInert` records what must never happen on a console page: a
 * dialog, a console error the page itself caused, a navigation away from the console.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { signInTicket } from '../../src/console/server/ticket.ts';

/** CHROMIUM is Debian's browser binary (`.ci/run` installs it when missing). */
export const CHROMIUM = process.env['FOGBANK_CHROMIUM'] ?? '/usr/bin/chromium';

/** launchBrowser starts headless Chromium; playwright gives it a fresh, temporary profile of its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Inertness is what a page did that it must not. */
export interface Inertness {
  readonly dialogs: string[];
  readonly errors: string[];
  readonly navigations: string[];
}

/**
 * watchInert records dialogs (dismissed), page errors, console errors of the console's own
 * documents, and main-frame navigations away from `consoleUrl`. The browser's own notes that it
 * blocked a message body's script or request (in the sandboxed frame, under its CSP) are the
 * protection working, not the page failing: they are kept apart in `blocked`.
 */
export function watchInert(page: Page, consoleUrl: string): Inertness & { readonly blocked: string[] } {
  const seen = { dialogs: [] as string[], errors: [] as string[], navigations: [] as string[], blocked: [] as string[] };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location().url;
    const text = message.text();
    // The console itself has no srcdoc frame: one is a message body's own nested frame.
    const fromFrame = where === '' || where === 'about:srcdoc' || /\/messages\/[^/]+\/html/.test(where);
    if (fromFrame && /^(Blocked |Refused to )|The action has been blocked\.$/.test(text)) seen.blocked.push(text);
    else seen.errors.push(`${where}: ${text}`);
  });
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && !frame.url().startsWith(consoleUrl)) seen.navigations.push(frame.url());
  });
  return seen;
}

/** screenshot writes `docs/console/<name>.png` when FOGBANK_SCREENSHOTS=1 (so ordinary runs leave the tree alone). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env['FOGBANK_SCREENSHOTS'] !== '1') return;
  mkdirSync('docs/console', { recursive: true });
  await page.screenshot({ path: `docs/console/${name}.png`, fullPage: false });
}

/** AXE_RUN lists axe-core's serious and critical violations on the page as `rule: targets`. */
const AXE_RUN =
  "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))";

let axeSource: string | undefined;

/**
 * seriousViolations runs axe-core on the page as it stands and lists its serious and critical
 * violations. The checker is evaluated through the debugging protocol, so the page's CSP
 * (`script-src 'self'`) does not apply to it.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axeSource);
  return (await page.evaluate(AXE_RUN)) as string[];
}

/** assertAccessible opens each view (a `#/…` hash and a selector that shows it rendered) and fails on any serious or critical axe-core violation. */
export async function assertAccessible(page: Page, consoleUrl: string, views: readonly (readonly [hash: string, ready: string])[]): Promise<void> {
  for (const [hash, ready] of views) {
    await page.goto(`${consoleUrl}${hash}`);
    await page.locator(ready).first().waitFor();
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${hash}: ${violations.join('; ')}`);
  }
}

/** signedInPage opens a page in a new context of `browser`, watched for what must never happen, signed in to the console as `token` by a one-time link. */
export async function signedInPage(
  browser: Browser,
  consoleUrl: string,
  token: string,
  options: BrowserContextOptions,
): Promise<{ page: Page; inert: ReturnType<typeof watchInert> }> {
  const page = await (await browser.newContext(options)).newPage();
  const inert = watchInert(page, consoleUrl);
  await page.goto(`${consoleUrl}sign-in?ticket=${signInTicket(token)}`);
  await page.locator('.principal').waitFor();
  return { page, inert };
}
