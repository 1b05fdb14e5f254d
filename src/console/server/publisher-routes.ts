/**
 * The publisher view: internal-sharing artifacts per package — version code and name, the
 * signing certificate's SHA-256 fingerprint and subject, the bytes' SHA-256 and size, upload
 * time, and the download page fogbank serves for each, read through the publisher family's face
 * (services/publisher/public.ts). A principal sees the packages it may
 * publish (its `apps`, or every one without a list) when it holds the androidpublisher scope.
 */
import type { FastifyInstance } from 'fastify';
import { downloadLinks, internalSharingArtifacts, PUBLISHER_SCOPE } from '../../services/publisher/public.ts';
import type { Store } from '../../store/store.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { ConsoleError } from './errors.ts';
import type { Sessions } from './sessions.ts';

/** registerPublisherRoutes adds the publisher view's route. */
export function registerPublisherRoutes(app: FastifyInstance, store: Store, sessions: Sessions): void {
  app.get(`${CONSOLE_PREFIX}/api/publisher/artifacts`, async (request) => {
    const { principal } = sessions.require(request);
    if (!principal.hasAnyScope([PUBLISHER_SCOPE]))
      throw new ConsoleError(403, `${principal.email} may not see artifacts: it needs the androidpublisher scope.`);
    const packages = new Map<string, unknown[]>();
    for (const artifact of await internalSharingArtifacts(store, principal.apps)) {
      const links = downloadLinks('', artifact);
      const list = packages.get(artifact.packageName) ?? [];
      list.push({
        id: artifact.id,
        kind: artifact.kind,
        versionCode: artifact.versionCode,
        versionName: artifact.versionName,
        certificateFingerprint: artifact.certificateFingerprint,
        certificateSubject: artifact.certificateSubject,
        signedBy: artifact.signedBy,
        sha256: artifact.sha256,
        size: artifact.size,
        createTime: artifact.createTime,
        page: links.page,
        download: links.file,
      });
      packages.set(artifact.packageName, list);
    }
    return { packages: [...packages].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([packageName, artifacts]) => ({ packageName, artifacts })) };
  });
}
