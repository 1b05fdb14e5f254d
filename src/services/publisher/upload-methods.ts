/**
 * uploadbundle and uploadapk as upload methods: `begin` checks the caller may publish the path's
 * package before a byte is accepted; `complete` inspects the received file and answers the
 * InternalAppSharingArtifact. The upload protocol around them is the engine's.
 */

import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../../core/auth.ts';
import { authorizePackage } from './authorize.ts';
import { downloadLinks } from './download-page.ts';
import type { ArtifactKind } from './inspect-upload.ts';
import { toResource, type PublisherService } from './publisher-service.ts';
import type { CompletedUpload, UploadAnswer, UploadMethod } from '../../core/uploads/index.ts';

/** ArtifactUploadContext is what completion needs, kept JSON so a resumable session can carry it across restarts. */
export interface ArtifactUploadContext {
  readonly packageName: string;
  /** `http://host:port` as the client reached fogbank, for the downloadUrl. */
  readonly origin: string;
}

/** METHOD_IDS are the discovery ids of the two methods. */
const METHOD_IDS: Readonly<Record<ArtifactKind, string>> = {
  bundle: 'androidpublisher.internalappsharingartifacts.uploadbundle',
  apk: 'androidpublisher.internalappsharingartifacts.uploadapk',
};

/**
 * artifactUploadMethod is uploadbundle (`bundle`) or uploadapk (`apk`). Any media type is
 * accepted (discovery lists application/octet-stream, plus the APK type for uploadapk): the
 * content is checked by inspection, not by its label.
 */
export function artifactUploadMethod(kind: ArtifactKind, service: PublisherService, auth: Authenticator, maxSize: number): UploadMethod<ArtifactUploadContext> {
  return {
    id: METHOD_IDS[kind],
    limits: { accept: ['*/*'], maxSize },
    begin(request: FastifyRequest): ArtifactUploadContext {
      const { packageName } = request.params as { packageName: string };
      authorizePackage(request, auth, packageName);
      return { packageName, origin: `${request.protocol}://${request.host}` };
    },
    async complete(upload: CompletedUpload, context: ArtifactUploadContext): Promise<UploadAnswer> {
      const record = await service.uploadArtifact(kind, context.packageName, upload.media, upload.signal);
      return { status: 200, body: toResource(record, downloadLinks(context.origin, record).page) };
    },
  };
}
