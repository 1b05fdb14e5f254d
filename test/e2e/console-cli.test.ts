/**
 * `fogbank start` prints the console's one-time sign-in link; following it signs a browser in once;
 * a browser opening the server's address is sent to the console (the bundled executable: its
 * console files are the build's).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFogbankProcess } from '../harness/process.ts';

describe('fogbank start and the console', () => {
  it('the banner holds a one-time sign-in link under /_fogbank/console that sets an HttpOnly SameSite=Strict cookie', async () => {
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', 'tok']);
    try {
      const line = server.lines.find((each) => each.includes('/_fogbank/console/'));
      assert.match(line ?? '', /^ {2}console {2}http:\/\/127\.0\.0\.1:\d+\/_fogbank\/console\/sign-in\?ticket=[\w-]{32}$/);
      const link = (line ?? '').trim().split(/\s+/).at(-1) ?? '';
      assert.ok(link.startsWith(`${server.url}/_fogbank/console/`));
      const home = await fetch(`${server.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
      assert.equal(home.status, 302);
      assert.equal(home.headers.get('location'), '/_fogbank/console/');
      const page = await fetch(`${server.url}/_fogbank/console/`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'self'; style-src 'self';/);
      const asset = /src="(\/_fogbank\/console\/assets\/main-\w+\.js)"/.exec(await page.text())?.[1] ?? '';
      const script = await fetch(`${server.url}${asset}`);
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const signIn = await fetch(link, { redirect: 'manual' });
      assert.equal(signIn.status, 303);
      const cookie = signIn.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^fogbank_console=[\w-]+; Path=\/_fogbank\/console; HttpOnly; SameSite=Strict$/);
      const session = await fetch(`${server.url}/_fogbank/console/api/session`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
      assert.deepEqual(
        { ...((await session.json()) as Record<string, unknown>), csrf: 'x' },
        { signedIn: true, principal: 'admin@fogbank.local', admin: true, csrf: 'x' },
      );
      assert.equal((await fetch(link, { redirect: 'manual' })).status, 401, 'the link works once');
      // A plain API client asking for / still gets the neutral 404, not a redirect.
      assert.equal((await fetch(`${server.url}/`, { redirect: 'manual' })).status, 404);
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
  });
});
