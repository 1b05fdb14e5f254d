import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServiceDefinition } from '../core/service.ts';
import { computeService } from './compute/index.ts';
import { FOGBANK_VERSION } from '../lib/version.ts';
import { renderBanner } from '../core/banner.ts';

test('the banner lists each family’s APIs and client setup lines, in registry order', () => {
  const other = {
    ...computeService,
    name: 'cluster',
    banner: (site) => ({
      apis: [{ name: 'cluster', baseUrl: `${site.url}/` }],
      clients: [{ name: 'kubectl', setup: [`export KUBECONFIG=${site.dataDir}/kubeconfig`] }],
    }),
  } satisfies ServiceDefinition;
  const quiet: ServiceDefinition = { ...computeService, name: 'quiet' };
  delete (quiet as { banner?: unknown }).banner;
  const text = renderBanner({ url: 'http://127.0.0.1:8780', dataDir: '/d', adminToken: 't', adminTokenFile: '/d/admin-token', storeBackend: 'sqlite' }, [
    computeService,
    quiet,
    other,
  ]);
  assert.equal(
    text,
    [
      `fogbank ${FOGBANK_VERSION} listening on http://127.0.0.1:8780 (store: sqlite, data: /d)`,
      '  admin token: /d/admin-token',
      '',
      '  compute        http://127.0.0.1:8780/compute/v1/',
      '  compute batch  http://127.0.0.1:8780/batch/compute/v1',
      '    gcloud:',
      '      gcloud config set api_endpoint_overrides/compute http://127.0.0.1:8780/compute/v1/',
      '      gcloud config set auth/access_token_file /d/admin-token',
      '',
      '  cluster  http://127.0.0.1:8780/',
      '    kubectl:',
      '      export KUBECONFIG=/d/kubeconfig',
      '',
      'Ctrl-C stops fogbank.',
      '',
    ].join('\n'),
  );
});

test('without a token file, the gcloud lines write the token to a file first', () => {
  const text = renderBanner({ url: 'http://h:1', dataDir: undefined, adminToken: 'tok', adminTokenFile: undefined, storeBackend: 'memory' }, [computeService]);
  assert.match(text, /^fogbank \S+ listening on http:\/\/h:1 \(store: memory\)\n {2}admin token: tok\n/);
  assert.ok(text.includes(`      printf '%s' 'tok' > token && gcloud config set auth/access_token_file "$PWD/token"\n`));
});
