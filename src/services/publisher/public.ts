/**
 * The publisher family's face: what the layers above it (the console, bench, cli) may use — the
 * internal-sharing artifacts as a read model, newest first, and the addresses of their download
 * pages — so the store kind and records inside the family can change without them
 * (test/architecture/ refuses any other import from outside the family).
 */
import type { Store } from '../../store/store.ts';
import { ARTIFACT_KIND, type ArtifactRecord } from './artifacts.ts';

export { PUBLISHER_SCOPE } from './authorize.ts';
export { DOWNLOAD_PREFIX, type DownloadLinks, downloadLinks } from './download-page.ts';

/** InternalSharingArtifact is one uploaded bundle or APK: package, version, signing certificate, the bytes' digest and size, upload time. */
export type InternalSharingArtifact = Omit<ArtifactRecord, 'file'>;

/**
 * internalSharingArtifacts lists the artifacts of every package, or of the packages named,
 * newest upload first.
 */
export async function internalSharingArtifacts(store: Store, packages?: readonly string[]): Promise<InternalSharingArtifact[]> {
  const records = (await store.list<ArtifactRecord>(ARTIFACT_KIND)).map((record) => record.value);
  const visible = packages === undefined ? records : records.filter((artifact) => packages.includes(artifact.packageName));
  return visible.sort((a, b) => (a.createTime < b.createTime ? 1 : a.createTime > b.createTime ? -1 : 0)).map(({ file: _file, ...artifact }) => artifact);
}
