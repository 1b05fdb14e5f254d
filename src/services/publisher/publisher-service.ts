/**
 * The publisher's methods, independent of how bytes arrived: an upload method takes an
 * already-received upload (a file in the data directory, its size, sha256, content type and
 * metadata), inspects it, and records the artifact; reads serve artifacts back.
 */

import { X509Certificate } from 'node:crypto';
import type { ArtifactRecord, ArtifactStore } from './artifacts.ts';
import type { FogbankSigner } from './fogbank-signer.ts';
import type { ArtifactKind } from './inspect-upload.ts';
import type { UploadedMedia } from '../../core/uploads/index.ts';

/** InternalAppSharingArtifact is the API resource (androidpublisher v3), exactly its three fields. */
export interface InternalAppSharingArtifact {
  readonly certificateFingerprint: string;
  readonly downloadUrl: string;
  readonly sha256: string;
}

/** PublisherService holds the publisher's methods. */
export class PublisherService {
  constructor(
    readonly artifacts: ArtifactStore,
    private readonly signer: FogbankSigner,
  ) {}

  /**
   * uploadArtifact inspects a received bundle or APK for `packageName` and keeps it: the file is
   * moved into the artifacts on success; on failure, or once `signal` is aborted, it is left for
   * the upload engine to remove.
   */
  async uploadArtifact(kind: ArtifactKind, packageName: string, media: UploadedMedia, signal?: AbortSignal): Promise<ArtifactRecord> {
    // The archive, manifest and signature readers load with the first upload, not at start-up.
    const { inspectUpload } = await import('./inspect-upload.ts');
    const inspection = await inspectUpload(media.path, media.size, kind, packageName);
    const certificate = inspection.certificate ?? (await this.signer.certificate());
    // The request was answered without us (deadline, shutdown): keep nothing.
    signal?.throwIfAborted();
    return this.artifacts.create({
      kind,
      packageName,
      path: media.path,
      size: media.size,
      sha256: media.sha256,
      contentType: media.mediaType,
      inspection,
      certificate,
      certificateSubject: subjectOf(certificate),
    });
  }
}

/** subjectOf renders a certificate's subject on one line (`CN=…, O=…`); '' when it does not parse. */
function subjectOf(der: Buffer): string {
  try {
    return new X509Certificate(der).subject.split('\n').join(', ');
  } catch {
    return '';
  }
}

/** toResource renders a record as the API's InternalAppSharingArtifact. */
export function toResource(record: ArtifactRecord, downloadUrl: string): InternalAppSharingArtifact {
  return { certificateFingerprint: record.certificateFingerprint, downloadUrl, sha256: record.sha256 };
}
