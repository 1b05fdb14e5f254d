/**
 * The publishing API as Discovery describes it (the Google Play Android Developer API, v3): the
 * two internal app sharing upload methods the publisher family serves (routes.ts), with Google's
 * ids, paths, parameters and upload limits. fogbank's download pages and admin listing are its
 * own, not Google methods, and are not described. A test holds this list to the registered routes
 * and to the facts taken from Google's published document (test/fixtures/discovery/).
 */

import type { DiscoveryApi, DiscoveryMediaUpload, DiscoveryMethod } from '../../core/discovery.ts';
import { discoveryMethod } from '../../core/discovery-method.ts';
import { PUBLISHER_SCOPE_TERMS } from './identifiers.ts';
import { APK_UPLOAD_LIMIT } from './options.ts';

const PUBLISHER_SCOPE = PUBLISHER_SCOPE_TERMS[0]?.real ?? '';
const SCOPES = [PUBLISHER_SCOPE];

/**
 * Play's own limits and media types (fogbank's configured upload limit may be lower: it answers
 * its 413 past it). The types are labels only: fogbank inspects the content, not its label.
 */
const MEDIA_UPLOADBUNDLE = { accept: ['application/octet-stream'], maxSize: 10 * 1024 ** 3 };
const MEDIA_UPLOADAPK = { accept: ['application/octet-stream', 'application/vnd.android.package-archive'], maxSize: APK_UPLOAD_LIMIT };

/** upload is the internal app sharing upload of one artifact kind (`bundle`, `apk`). */
const upload = (kind: string, mediaUpload: DiscoveryMediaUpload): DiscoveryMethod =>
  discoveryMethod(
    `androidpublisher.internalappsharingartifacts.upload${kind}`,
    'POST',
    `androidpublisher/v3/applications/internalappsharing/{packageName}/artifacts/${kind}`,
    {
      response: 'InternalAppSharingArtifact',
      scopes: SCOPES,
      mediaUpload,
    },
  );

/** PUBLISHER_METHODS are the methods the publisher family serves. */
export const PUBLISHER_METHODS: readonly DiscoveryMethod[] = [upload('bundle', MEDIA_UPLOADBUNDLE), upload('apk', MEDIA_UPLOADAPK)];

/** PUBLISHER_DISCOVERY is the Android Publisher v3 API fogbank serves (the spec's `publisher`). */
export const PUBLISHER_DISCOVERY: DiscoveryApi = {
  name: 'androidpublisher',
  version: 'v3',
  specName: 'publisher',
  scopeTerms: PUBLISHER_SCOPE_TERMS,
  title: 'Google Play Android Developer API',
  description: 'Lets Android application developers access their Google Play accounts.',
  documentationLink: 'https://developers.google.com/android-publisher',
  servicePath: '',
  batchPath: 'batch',
  scopes: { [PUBLISHER_SCOPE]: 'View and manage your Google Play Developer account' },
  methods: PUBLISHER_METHODS,
  schemas: {
    InternalAppSharingArtifact: {
      id: 'InternalAppSharingArtifact',
      type: 'object',
      properties: { certificateFingerprint: { type: 'string' }, downloadUrl: { type: 'string' }, sha256: { type: 'string' } },
    },
  },
};
