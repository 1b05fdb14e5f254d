import type { BannerSite, ServiceDefinition } from './service.ts';
import { FOGBANK_VERSION } from '../lib/version.ts';

/** BannerServer is what the banner says about the running server. */
export interface BannerServer extends BannerSite {
  readonly storeBackend: string;
}

/**
 * renderBanner is the start-up text: where fogbank listens, the admin token, then each family's
 * section — the APIs it serves with their base URLs, and the lines that point its clients here.
 * The first line always contains `listening on URL` (scripts wait for it), the plain-HTTP URL
 * first, then the HTTPS one on the same port unless TLS is off.
 */
export function renderBanner(server: BannerServer, services: readonly ServiceDefinition[]): string {
  const lines = [
    `fogbank ${FOGBANK_VERSION} listening on ${server.url}${server.httpsUrl === undefined ? '' : ` and ${server.httpsUrl}`} (store: ${server.storeBackend}${server.dataDir === undefined ? '' : `, data: ${server.dataDir}`})`,
    `  admin token: ${server.adminTokenFile ?? server.adminToken}`,
  ];
  for (const service of services) {
    const section = service.banner?.(server);
    if (section === undefined) continue;
    lines.push('');
    const width = Math.max(...section.apis.map((api) => api.name.length));
    for (const api of section.apis) lines.push(`  ${api.name.padEnd(width)}  ${api.baseUrl}`);
    for (const client of section.clients) {
      lines.push(`    ${client.name}:`);
      for (const line of client.setup) lines.push(`      ${line}`);
    }
  }
  lines.push('', 'Ctrl-C stops fogbank.', '');
  return lines.join('\n');
}
