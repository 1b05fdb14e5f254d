import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubeconfigText } from './kubeconfig.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const TLS = {
  httpsUrl: 'https://127.0.0.1:8780',
  trust: 'CA PEM\n',
  adminCertificate: { certificate: 'CERT PEM\n', key: 'KEY PEM\n' },
};

describe('kubeconfigText', () => {
  it('without TLS: one plain-HTTP context with the token as the URL password and as the token', () => {
    assert.deepEqual(parse(kubeconfigText('http://127.0.0.1:8780', 'tok')), {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fogbank', cluster: { server: 'http://fogbank:tok@127.0.0.1:8780', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fogbank-admin', user: { token: 'tok' } }],
      contexts: [{ name: 'fogbank', context: { cluster: 'fogbank', user: 'fogbank-admin', namespace: 'default' } }],
      'current-context': 'fogbank',
    });
  });

  it('with TLS: HTTPS with the CA and the token current, the client certificate kind-style beside it, plain HTTP kept', () => {
    assert.deepEqual(parse(kubeconfigText('http://127.0.0.1:8780', 'tok', 'fogbank', TLS)), {
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [
        { name: 'fogbank', cluster: { server: 'https://127.0.0.1:8780', 'certificate-authority-data': b64('CA PEM\n') } },
        { name: 'fogbank-http', cluster: { server: 'http://fogbank:tok@127.0.0.1:8780', 'insecure-skip-tls-verify': true } },
      ],
      users: [
        { name: 'fogbank-admin', user: { token: 'tok' } },
        { name: 'fogbank-admin-cert', user: { 'client-certificate-data': b64('CERT PEM\n'), 'client-key-data': b64('KEY PEM\n') } },
      ],
      contexts: [
        { name: 'fogbank', context: { cluster: 'fogbank', user: 'fogbank-admin', namespace: 'default' } },
        { name: 'fogbank-cert', context: { cluster: 'fogbank', user: 'fogbank-admin-cert', namespace: 'default' } },
        { name: 'fogbank-http', context: { cluster: 'fogbank-http', user: 'fogbank-admin', namespace: 'default' } },
      ],
      'current-context': 'fogbank',
    });
  });

  it("with certificates of the user's own (no admin client certificate): no certificate context", () => {
    const config = parse(kubeconfigText('http://127.0.0.1:8780', 'tok', 'fogbank', { httpsUrl: TLS.httpsUrl, trust: TLS.trust })) as {
      contexts: { name: string }[];
    };
    assert.deepEqual(
      config.contexts.map((context) => context.name),
      ['fogbank', 'fogbank-http'],
    );
  });
});
