/**
 * Inspection of an uploaded bundle or APK, the cheap checks Play makes before it accepts an
 * internal-sharing upload, in order: not empty; a ZIP whose central directory is sane and not a
 * bomb; the right kind of archive (a bundle's BundleConfig.pb and base/manifest, or an APK's
 * binary AndroidManifest.xml) with the other kind refused by name; the manifest decoded and its
 * package compared with the path's; and the signature — an APK's v3/v2 signing block, else the
 * JAR signature — which gives the signing certificate.
 * Everything reads the received file; only small entries are inflated, each with a cap.
 */

import { signingBlockCertificate } from './apk-signing-block.ts';
import { decodeBinaryManifest } from './binary-axml.ts';
import { invalidUpload, packageNameMismatch } from './errors.ts';
import { signingCertificate } from './jar-signature.ts';
import { decodeBundleConfig, decodeProtoManifest, type ManifestInfo } from './manifest.ts';
import { ZipArchive, type ZipLimits } from './zip-archive.ts';

/** ArtifactKind is what was uploaded: an Android App Bundle (artifacts/bundle) or an APK (artifacts/apk). */
export type ArtifactKind = 'bundle' | 'apk';

/** Inspection is what fogbank learned from an accepted upload. */
export interface Inspection {
  readonly manifest: ManifestInfo;
  /** DER of the certificate that signed the upload; undefined for an unsigned upload. */
  readonly certificate: Buffer | undefined;
}

/** BUNDLE_MANIFEST is where a bundle's base module keeps its (protobuf) manifest. */
export const BUNDLE_MANIFEST = 'base/manifest/AndroidManifest.xml';
/** BUNDLE_CONFIG is the bundle's top-level configuration, written by bundletool. */
export const BUNDLE_CONFIG = 'BundleConfig.pb';
/** APK_MANIFEST is where an APK keeps its (binary XML) manifest. */
export const APK_MANIFEST = 'AndroidManifest.xml';

const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
const MAX_BUNDLE_CONFIG_BYTES = 1024 * 1024;

/** WHAT names each kind in messages. */
const WHAT: Readonly<Record<ArtifactKind, string>> = { bundle: 'bundle', apk: 'APK' };

/** inspectUpload checks the file at `path` (of `size` bytes) as a `kind` for `packageName`; a 400 for the first problem found. */
export async function inspectUpload(path: string, size: number, kind: ArtifactKind, packageName: string, limits?: ZipLimits): Promise<Inspection> {
  const what = WHAT[kind];
  if (size === 0) throw invalidUpload(`The uploaded ${what} is empty.`);
  const archive = await ZipArchive.open(path, what, limits);
  try {
    let manifest: ManifestInfo;
    if (kind === 'bundle') {
      requireBundle(archive);
      await decodeBundleConfig(await archive.read(BUNDLE_CONFIG, MAX_BUNDLE_CONFIG_BYTES, what));
      manifest = await decodeProtoManifest(await archive.read(BUNDLE_MANIFEST, MAX_MANIFEST_BYTES, what), BUNDLE_MANIFEST);
    } else {
      requireApk(archive);
      manifest = decodeBinaryManifest(await archive.read(APK_MANIFEST, MAX_MANIFEST_BYTES, what), APK_MANIFEST);
    }
    if (manifest.packageName !== packageName) throw packageNameMismatch(packageName);
    // An APK's v3/v2 signing block takes precedence over its JAR signature, as on Android.
    const blockCertificate = kind === 'apk' ? await signingBlockCertificate(path, archive.centralDirectoryOffset) : undefined;
    const certificate = blockCertificate ?? (await signingCertificate(archive, what));
    return { manifest, certificate };
  } finally {
    await archive.close();
  }
}

function requireBundle(archive: ZipArchive): void {
  if (!archive.has(BUNDLE_MANIFEST) && archive.has(APK_MANIFEST)) {
    throw invalidUpload(
      'The uploaded file is an APK, not an Android App Bundle (it has a top-level AndroidManifest.xml and no base/manifest/AndroidManifest.xml); upload APKs with uploadapk (artifacts/apk).',
    );
  }
  if (!archive.has(BUNDLE_CONFIG)) throw invalidUpload(`The uploaded bundle is not an Android App Bundle: it has no ${BUNDLE_CONFIG}.`);
  if (!archive.has(BUNDLE_MANIFEST)) throw invalidUpload(`The uploaded bundle has no base module manifest (${BUNDLE_MANIFEST}).`);
}

function requireApk(archive: ZipArchive): void {
  if (!archive.has(APK_MANIFEST) && (archive.has(BUNDLE_MANIFEST) || archive.has(BUNDLE_CONFIG))) {
    throw invalidUpload(
      'The uploaded file is an Android App Bundle, not an APK (it has BundleConfig.pb or base/manifest/AndroidManifest.xml); upload bundles with uploadbundle (artifacts/bundle).',
    );
  }
  if (!archive.has(APK_MANIFEST)) throw invalidUpload(`The uploaded APK has no ${APK_MANIFEST}.`);
}
