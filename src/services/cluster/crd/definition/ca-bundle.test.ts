import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import { acceptNames } from './accept-names.ts';
import { caBundleProblem } from './ca-bundle.ts';
import { defaultCustomResourceDefinition } from './defaults.ts';
import { widgetCrd } from './test-crds.ts';
import { validateCustomResourceDefinition } from './validate-definition.ts';

/** A throwaway self-signed certificate (its key was never kept). */
const CERTIFICATE = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBiDCCAS+gAwIBAgIUFmXC2px/lNHyUHjUervBj9tXrFUwCgYIKoZIzj0EAwIw',
  'GjEYMBYGA1UEAwwPZm9nYmFuay10ZXN0LWNhMB4XDTI2MTEyNjA4Mjk0MloXDTM2',
  'MTEyMzA4Mjk0MlowGjEYMBYGA1UEAwwPZm9nYmFuay10ZXN0LWNhMFkwEwYHKoZI',
  'zj0CAQYIKoZIzj0DAQcDQgAEwrDWUsobYBxUxi8pPiUPSnwGVvehrN59kDgipID2',
  'sx6QrBLwlLudN2YsbgHGYQzMuYTfYsu0eu7bY7djWBwn4KNTMFEwHQYDVR0OBBYE',
  'FOPAdIRcTzhXcHyHsLibMBrXJvhSMB8GA1UdIwQYMBaAFOPAdIRcTzhXcHyHsLib',
  'MBrXJvhSMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgehTUos/L',
  'RPw8rs5ykZNI+CiB0Aiq9fGQaIXMxCJk0vUCIH0GDluqr+B2rWEtal96aSwel6jk',
  'xDKeG1dsP0FdQrk/',
  '-----END CERTIFICATE-----',
].join('\n');
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function withWebhook(caBundle: string) {
  const crd = widgetCrd();
  crd.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com/', caBundle }, conversionReviewVersions: ['v1'] } };
  return crd;
}

describe('the conversion webhook CA bundle', () => {
  it('is read as client-go reads root certificates', () => {
    assert.equal(caBundleProblem(b64(`${CERTIFICATE}\n`)), undefined);
    assert.equal(caBundleProblem(b64(`junk before\n${CERTIFICATE}\n`)), undefined);
    assert.equal(caBundleProblem(''), undefined);
    assert.equal(caBundleProblem(b64('not pem')), 'unable to load root certificates: unable to parse bytes as PEM block');
    assert.equal(
      caBundleProblem(b64('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')),
      'unable to load root certificates: no valid certificate authority data seen',
    );
    assert.equal(
      caBundleProblem(b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')),
      'unable to load root certificates: failed to parse certificate: x509: malformed certificate',
    );
  });

  it('keeps a CRD unestablished while its bundle is invalid, and refuses a bad one once established', () => {
    const bad = defaultCustomResourceDefinition(withWebhook(b64('not pem')), undefined);
    assert.deepEqual(validateCustomResourceDefinition(bad, undefined).map(fieldErrorText), [], 'accepted on create');
    const status = acceptNames(bad, [], '2026-01-01T00:00:00Z');
    assert.deepEqual(status.conditions?.[1], {
      type: 'Established',
      status: 'False',
      reason: 'InvalidCABundle',
      message: 'The conversion webhook CABundle is invalid',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });

    const good = defaultCustomResourceDefinition(withWebhook(b64(CERTIFICATE)), undefined);
    good.status = acceptNames(good, [], '2026-01-01T00:00:00Z');
    assert.equal(good.status.conditions?.[1]?.reason, 'InitialNamesAccepted');
    const broken = structuredClone(good);
    (broken.spec.conversion!.webhook!.clientConfig as { caBundle: string }).caBundle = b64('no');
    assert.deepEqual(validateCustomResourceDefinition(broken, good).map(fieldErrorText), [
      'spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x6e, 0x6f}: unable to load root certificates: unable to parse bytes as PEM block',
    ]);
  });
});
