import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { denyPage } from './deny-page.ts';
import { allowEffect, blockEffect, denyStatus } from './rule-action.ts';

describe('rule actions', () => {
  it('read deny statuses', () => {
    assert.equal(denyStatus('deny(404)'), 404);
    assert.equal(denyStatus('deny'), 403);
    assert.equal(denyStatus('allow'), undefined);
  });

  it('turn deny and redirect into what the client gets and the log says', () => {
    assert.deepEqual(blockEffect('deny(502)', undefined), {
      configuredAction: 'DENY',
      outcome: 'DENY',
      response: { kind: 'deny', status: 502 },
      statusDetails: 'denied_by_security_policy',
    });
    assert.deepEqual(blockEffect('redirect', { type: 'EXTERNAL_302', target: 'https://example.net/' }), {
      configuredAction: 'EXTERNAL_302',
      outcome: 'REDIRECT',
      response: { kind: 'redirect', status: 302, location: 'https://example.net/' },
      statusDetails: 'redirected_by_security_policy',
    });
    assert.deepEqual(blockEffect('redirect', { type: 'GOOGLE_RECAPTCHA' })?.response, { kind: 'redirect', status: 302, recaptcha: true });
    assert.equal(blockEffect('deny(429)', undefined, 'THROTTLE')?.configuredAction, 'THROTTLE');
    assert.equal(blockEffect('allow', undefined), undefined);
    assert.deepEqual(allowEffect('ALLOW'), { configuredAction: 'ALLOW', outcome: 'ACCEPT', response: { kind: 'forward' } });
  });

  it("answer with Cloud Armor's page, no trailing newline", () => {
    assert.equal(
      denyPage(403),
      '<!doctype html><meta charset="utf-8"><meta name=viewport content="width=device-width, initial-scale=1"><title>403</title>403 Forbidden',
    );
    assert.ok(denyPage(404).endsWith('<title>404</title>404 Not Found'));
    assert.ok(denyPage(429).endsWith('<title>429</title>429 Too Many Requests'));
    assert.ok(denyPage(502).endsWith('<title>502</title>502 Bad Gateway'));
  });
});
