/**
 * What a started server leaves for its clients: each family's client files (the kubeconfig)
 * written into the data directory, and the HTTPS part of the site they describe (startFogbank's
 * listening step, and the CLI's banner).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BannerSite, ServiceDefinition } from '../core/service.ts';
import type { TlsMaterial } from '../core/tls/tls-material.ts';
import { SERVICES } from '../services/registry.ts';

/** tlsSite is the HTTPS part of a BannerSite: the address and what to trust (and the admin's client certificate). */
export function tlsSite(httpsUrl: string | undefined, material: TlsMaterial | undefined): Pick<BannerSite, 'httpsUrl' | 'tls'> {
  if (httpsUrl === undefined) return {};
  if (material === undefined) return { httpsUrl };
  return { httpsUrl, tls: { trust: material.trust, ...(material.admin === undefined ? {} : { adminCertificate: material.admin }) } };
}

/** writeClientFiles writes every family's client files (the kubeconfig) into the data directory, if there is one, and names their paths. */
export function writeClientFiles(services: readonly ServiceDefinition[] = SERVICES, site: BannerSite): ReadonlyMap<string, string> {
  const written = new Map<string, string>();
  if (site.dataDir === undefined) return written;
  mkdirSync(site.dataDir, { recursive: true, mode: 0o700 });
  for (const file of services.flatMap((service) => service.clientFiles?.(site) ?? [])) {
    const path = join(site.dataDir, file.name);
    // Whole or not at all: a client reading it meanwhile (a restart rewrites it) sees the old file or the new one.
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.text, { mode: 0o600 });
    renameSync(temporary, path);
    written.set(file.name, path);
  }
  return written;
}
