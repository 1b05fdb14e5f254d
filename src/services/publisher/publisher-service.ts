/**
 * The publisher's methods, independent of how bytes arrived: an upload method takes an
 * already-received upload (a file in the data directory, its size, sha256, content type and
 * metadata), inspects it, and records the artifact; reads serve artifacts back.
 */

import { X509Certificate } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { ArtifactRecord, ArtifactStore } from './artifacts.ts';
import type { FogbankSigner } from './fogbank-signer.ts';
import { inspectUpload, type ArtifactKind } from './inspect-upload.ts';
import type { ReceivedUpload } from './receive-upload.ts';

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
   * uploadArtifact inspects a received bundle or APK for `packageName` and keeps it. The
   * received file is consumed: moved into the artifacts on success, removed on any failure.
   */
  async uploadArtifact(kind: ArtifactKind, packageName: string, upload: ReceivedUpload): Promise<ArtifactRecord> {
    try {
      const inspection = await inspectUpload(upload.path, upload.size, kind, packageName);
      const certificate = inspection.certificate ?? (await this.signer.certificate());
      return await this.artifacts.create({
        kind,
        packageName,
        path: upload.path,
        size: upload.size,
        sha256: upload.sha256,
        contentType: upload.contentType,
        inspection,
        certificate,
        certificateSubject: subjectOf(certificate),
      });
    } catch (error) {
      await rm(upload.path, { force: true });
      throw error;
    }
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

/** toResource renders a record as the API's InternalAppSharingArtifact, its downloadUrl on `origin`. */
export function toResource(record: ArtifactRecord, downloadUrl: string): InternalAppSharingArtifact {
  return { certificateFingerprint: record.certificateFingerprint, downloadUrl, sha256: record.sha256 };
}
