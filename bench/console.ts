/**
 * The web console's two numbers (issue 29): how long its first view takes to render on loopback,
 * and a live update's latency — from the start of a Gmail send to the new row painted in an open
 * mailbox view. Headless Chromium (Debian's, through playwright-core). Each is printed beside a
 * baseline measured in the same run: loading `/healthz` in the same browser, and the send's own
 * round trip. No goal is stated for them; they are shown for scale. Rounds: 7 unless --rounds
 * asks for more (a browser round costs little).
 */
import { signInTicket } from '../src/console/server/ticket.ts';
import { startFogbank } from '../src/testing/fogbank.ts';
import { launchBrowser } from '../test/harness/browser.ts';
import { ensureConsoleBuilt } from '../test/harness/console-build.ts';
import { type Bench, metricOf, runAlone } from './lib/report.ts';

const TOKEN = 'bench-console';

/** WATCH_FOR_ROW runs in the page (as text: this file is type-checked without the DOM's types). */
const WATCH_FOR_ROW = `(wanted) => {
  delete globalThis.__seen;
  const observer = new MutationObserver(() => {
    const rows = [...document.querySelectorAll('[data-message-id] .subject')];
    if (!rows.some((row) => row.textContent === wanted)) return;
    observer.disconnect();
    requestAnimationFrame(() => { globalThis.__seen = performance.timeOrigin + performance.now(); });
  });
  observer.observe(document.body, { childList: true, subtree: true, characterData: true });
}`;

/** bench times the console's first view and a live update, each beside its baseline. */
export const bench: Bench = async ({ rounds }) => {
  const ROUNDS = Math.max(rounds, 7);
  await ensureConsoleBuilt();
  const server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN });
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    const consoleUrl = `${server.url}/_fogbank/console/`;
    await page.goto(`${consoleUrl}sign-in?ticket=${signInTicket(TOKEN)}`);
    await page.locator('.principal').waitFor();

    const send = async (subject: string): Promise<void> => {
      const raw = Buffer.from(`From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: ${subject}\r\n\r\nhello\r\n`).toString('base64url');
      const response = await fetch(`${server.url}/gmail/v1/users/me/messages/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ raw }),
      });
      if (response.status !== 200) throw new Error(`send answered ${response.status}`);
    };
    await send('warm-up');

    const healthz: number[] = [];
    const firstRender: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let started = performance.now();
      await page.goto(`${server.url}/healthz`);
      healthz.push(performance.now() - started);
      started = performance.now();
      await page.goto(`${consoleUrl}#/mail/bob@example.com`);
      await page.locator('[data-message-id]').first().waitFor();
      firstRender.push(performance.now() - started);
    }

    const roundTrip: number[] = [];
    const live: number[] = [];
    await page.locator('[data-live="on"]').waitFor();
    for (let round = 0; round < ROUNDS; round++) {
      const subject = `live-${round}`;
      // The page notes (in epoch milliseconds) the frame after the row for `subject` was added.
      await page.evaluate(`(${WATCH_FOR_ROW})(${JSON.stringify(subject)})`);
      const sentAt = Date.now();
      const started = performance.now();
      await send(subject);
      roundTrip.push(performance.now() - started);
      await page.waitForFunction(() => (globalThis as unknown as { __seen?: number }).__seen !== undefined);
      const seen = (await page.evaluate(() => (globalThis as unknown as { __seen: number }).__seen)) as number;
      live.push(seen - sentAt);
    }

    return [
      metricOf({
        metric: 'console first view rendered (mail list)',
        unit: 'ms',
        fogbank: firstRender,
        baseline: { label: 'loading /healthz', samples: healthz },
      }),
      metricOf({
        metric: 'console live update, send → row painted',
        unit: 'ms',
        fogbank: live,
        baseline: { label: "the send's round trip", samples: roundTrip },
      }),
    ];
  } finally {
    await browser.close();
    await server.close();
  }
};

runAlone(import.meta, bench);
