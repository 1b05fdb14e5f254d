import { join } from 'node:path';
import type { BannerSection, BannerSite } from '../../core/service.ts';
import { KUBECONFIG_FILE_NAME } from './kubeconfig.ts';

/**
 * clusterBanner is the cluster family's start-up banner section: the API server's address and
 * how to point kubectl at it — the kubeconfig `fogbank start` wrote into the data directory, or,
 * with nothing on disk (`--ephemeral`), the kubectl commands that make such a context.
 */
export function clusterBanner(site: BannerSite): BannerSection {
  const url = new URL(site.url);
  url.username = 'fogbank';
  url.password = site.adminToken;
  const setup =
    site.dataDir !== undefined
      ? [`export KUBECONFIG=${join(site.dataDir, KUBECONFIG_FILE_NAME)}`]
      : [
          // kubectl sends no bearer token over plain HTTP: the token rides as the URL's password.
          // (Over HTTPS it needs the CA, which only a data directory keeps: the kubeconfig there has it.)
          `kubectl config set-cluster fogbank --server=${url.toString().replace(/\/$/, '')}`,
          `kubectl config set-credentials fogbank-admin --token=${site.adminToken}`,
          'kubectl config set-context fogbank --cluster=fogbank --user=fogbank-admin && kubectl config use-context fogbank',
        ];
  const apis = [{ name: 'cluster (Kubernetes API)', baseUrl: site.url }];
  if (site.httpsUrl !== undefined) apis.push({ name: 'cluster over HTTPS', baseUrl: site.httpsUrl });
  return { apis, clients: [{ name: 'kubectl', setup }] };
}
