import type { BannerSection, BannerSite } from '../../core/service.ts';

/**
 * computeBanner is compute's start-up banner section: its base URLs and the gcloud settings.
 * gcloud needs the override to end in `/` (it appends the resource path to it as is).
 */
export function computeBanner(site: BannerSite): BannerSection {
  const base = `${site.url}/compute/v1/`;
  const token =
    site.adminTokenFile !== undefined
      ? `gcloud config set auth/access_token_file ${site.adminTokenFile}`
      : `printf '%s' '${site.adminToken}' > token && gcloud config set auth/access_token_file "$PWD/token"`;
  return {
    apis: [
      { name: 'compute', baseUrl: base },
      { name: 'compute batch', baseUrl: `${site.url}/batch/compute/v1` },
    ],
    clients: [{ name: 'gcloud', setup: [`gcloud config set api_endpoint_overrides/compute ${base}`, token] }],
  };
}
