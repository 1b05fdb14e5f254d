import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { registeredRoutes } from '../core/route-registry.ts';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';

let fb: RunningFogbank;
before(async () => {
  fb = await startFogbank();
});
after(() => fb.close());

it('names every route of the Google families by its Discovery method id in the request journal', async () => {
  const reader = fb.control.requests;
  await reader.ready();
  const unnamed: string[] = [];
  let checked = 0;
  for (const route of registeredRoutes(fb.app)) {
    if (!['compute', 'mail', 'publisher'].includes(route.family ?? '') || route.method === 'HEAD' || route.method === 'OPTIONS') continue;
    // Not API methods: catch-alls, gcloud's batch envelope (its parts are compute requests of
    // their own) and the publisher's download pages (fogbank's stand-in for Play's web pages).
    if (route.url.includes('*') || route.url === '/batch/compute/v1' || route.url.startsWith('/_fogbank/')) continue;
    const path = route.url.replace(/:[A-Za-z_][\w-]*/g, 'x1');
    const entry = reader.entryOf({
      time: 0,
      family: route.family!,
      httpMethod: route.method,
      url: path,
      routedUrl: path,
      authorization: undefined,
      status: 200,
      latencyMs: 0,
      fault: null,
    });
    checked++;
    if (entry.method.startsWith(`${route.method} `)) unnamed.push(`${route.method} ${route.url}`);
  }
  assert.ok(checked > 20, `only ${checked} routes checked`);
  assert.deepEqual(unnamed, []);
});
