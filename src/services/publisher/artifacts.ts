/**
 * Internal-sharing artifacts: every accepted upload is kept — its bytes as a store file, its
 * description as a store record keyed by package — so the download page and the admin listing
 * can serve it later, across restarts and through every replica sharing the store.
 */

import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import type { Store } from '../../store/store.ts';
import type { ArtifactKind, Inspection } from './inspect-upload.ts';
import { certificateFingerprint } from './jar-signature.ts';

/** ARTIFACT_KIND is the store kind of artifact records; keys are `<packageName>/<artifactId>`. */
export const ARTIFACT_KIND = 'publisher.internalAppSharingArtifacts';

/** ArtifactRecord is what fogbank keeps about one artifact. */
export interface ArtifactRecord {
  readonly id: string;
  readonly packageName: string;
  readonly kind: ArtifactKind;
  /** Lowercase hex SHA-256 of the uploaded bytes. */
  readonly sha256: string;
  readonly size: number;
  /** Colon-separated uppercase SHA-256 of the signing certificate. */
  readonly certificateFingerprint: string;
  /** Who signed: the uploader's JAR signature, or fogbank's key for an unsigned upload (as Play re-signs). */
  readonly signedBy: 'upload' | 'fogbank';
  /** The signing certificate's subject, for the download page. */
  readonly certificateSubject: string;
  readonly versionCode: number | null;
  readonly versionName: string | null;
  readonly contentType: string;
  /** RFC 3339 time of the upload. */
  readonly createTime: string;
  /** The bytes' store file, under `publisher/artifacts/` (`<packageName>/<id>.aab|apk`). */
  readonly file: string;
}

/** NewArtifact is everything create needs about an inspected upload. */
export interface NewArtifact {
  readonly kind: ArtifactKind;
  readonly packageName: string;
  /** The received file; it is handed over to the store's files (the caller removes it if it is still there). */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly contentType: string;
  readonly inspection: Inspection;
  /** DER of the certificate that stands for the artifact (the upload's or fogbank's). */
  readonly certificate: Buffer;
  readonly certificateSubject: string;
}

/** FOLDER is where artifact bytes live in `store.files`. */
const FOLDER = 'publisher/artifacts/';

/**
 * ArtifactStore keeps artifacts: records and bytes in the store. The bytes are written first,
 * then the record; a failed record write removes the bytes, and `sweep` removes those a crash
 * left behind.
 */
export class ArtifactStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {}

  /** sweep removes artifact files no record names. */
  async sweep(): Promise<void> {
    await this.store.files.sweep(FOLDER, async (ids) => {
      const live = new Set<string>();
      for (const id of ids) {
        const match = /^([^/]+)\/([^/.]+)\.(?:aab|apk)$/.exec(id.slice(FOLDER.length));
        if (match !== null && (await this.get(match[1]!, match[2]!))?.file === id.slice(FOLDER.length)) live.add(id);
      }
      return live;
    });
  }

  /** create hands the received file to the store and records the artifact; on failure nothing is left behind. */
  async create(artifact: NewArtifact): Promise<ArtifactRecord> {
    // Opaque and unguessable, like Play's download tokens: the link is the capability.
    const id = this.ids.bytes(18).toString('base64url');
    const file = `${artifact.packageName}/${id}.${artifact.kind === 'bundle' ? 'aab' : 'apk'}`;
    const record: ArtifactRecord = {
      id,
      packageName: artifact.packageName,
      kind: artifact.kind,
      sha256: artifact.sha256,
      size: artifact.size,
      certificateFingerprint: certificateFingerprint(artifact.certificate),
      signedBy: artifact.inspection.certificate === undefined ? 'fogbank' : 'upload',
      certificateSubject: artifact.certificateSubject,
      versionCode: artifact.inspection.manifest.versionCode ?? null,
      versionName: artifact.inspection.manifest.versionName ?? null,
      contentType: artifact.contentType,
      createTime: new Date(this.clock.now()).toISOString(),
      file,
    };
    await this.store.files.adopt(FOLDER + file, artifact.path, 'move');
    try {
      await this.store.transact((tx) => tx.put(ARTIFACT_KIND, `${artifact.packageName}/${id}`, record, { expectRevision: 0 }));
    } catch (error) {
      await this.store.files.remove(FOLDER + file);
      throw error;
    }
    return record;
  }

  /** get returns one artifact, or undefined. */
  async get(packageName: string, id: string): Promise<ArtifactRecord | undefined> {
    return (await this.store.get<ArtifactRecord>(ARTIFACT_KIND, `${packageName}/${id}`))?.value;
  }

  /** list returns a package's artifacts, oldest first (in the order the store recorded them). */
  async list(packageName: string): Promise<ArtifactRecord[]> {
    const records = await this.store.list<ArtifactRecord>(ARTIFACT_KIND, { prefix: `${packageName}/` });
    return records.sort((a, b) => a.createRevision - b.createRevision).map((record) => record.value);
  }

  /** read streams an artifact's bytes. */
  read(record: ArtifactRecord): Readable {
    return this.store.files.read(FOLDER + record.file);
  }
}
