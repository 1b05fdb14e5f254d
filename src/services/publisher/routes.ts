/**
 * The publisher's route table, registered under the real API base (`/androidpublisher/v3`; core
 * routes the spec's `/publisher/v3` there, see the family's pathAliases) in three forms: the
 * upload address (`/upload/…` and `/resumable/upload/…`, bodies streamed by the upload engine),
 * the metadata address, and fogbank's own download pages and admin listing.
 */

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../core/auth.ts';
import type { ArtifactRecord } from './artifacts.ts';
import { authorizePackage, usePublisherAuth } from './authorize.ts';
import { downloadLinks, renderDownloadPage } from './download-page.ts';
import { notFound } from './errors.ts';
import type { ArtifactKind } from './inspect-upload.ts';
import type { PublisherService } from './publisher-service.ts';
import { wrongUrlForUpload, type UploadEngine, type UploadMethod } from '../../core/uploads/index.ts';
import type { ArtifactUploadContext } from './upload-methods.ts';

/** ARTIFACT_PATH is each method's path (after the base) by the kind it accepts. */
const ARTIFACT_PATH: Readonly<Record<ArtifactKind, string>> = {
  bundle: '/applications/internalappsharing/:packageName/artifacts/bundle',
  apk: '/applications/internalappsharing/:packageName/artifacts/apk',
};

/** RouteOptions are what the routes need from the service's assembly. */
export interface RouteOptions {
  readonly service: PublisherService;
  readonly auth: Authenticator;
  readonly engine: UploadEngine;
  readonly methods: Readonly<Record<ArtifactKind, UploadMethod<ArtifactUploadContext>>>;
  readonly bodyLimit: number;
}

type PackageParams = { readonly packageName: string };
type ArtifactParams = PackageParams & { readonly artifactId: string };

/** registerUploadRoutes serves the upload address under `scope`'s prefix; `resumable` marks the `/resumable/upload/…` alias. */
export function registerUploadRoutes(scope: FastifyInstance, options: RouteOptions, resumable: boolean): void {
  options.engine.streamBodies(scope);
  usePublisherAuth(scope, options.auth);
  for (const kind of ['bundle', 'apk'] as const) {
    options.engine.route(scope, 'POST', ARTIFACT_PATH[kind], options.methods[kind], resumable ? 'resumable' : undefined);
  }
}

/** registerMetadataRoutes serves the metadata address under `scope`'s prefix: these methods take only media, so it answers Google's wrongUrlForUpload. */
export function registerMetadataRoutes(scope: FastifyInstance, options: RouteOptions): void {
  usePublisherAuth(scope, options.auth);
  for (const kind of ['bundle', 'apk'] as const) {
    scope.post<{ Params: PackageParams }>(ARTIFACT_PATH[kind], async (request) => {
      authorizePackage(request, options.auth, request.params.packageName);
      throw wrongUrlForUpload();
    });
  }
}

/** registerDownloadRoutes serves each artifact's page and bytes without credentials: the unguessable link is the capability, as Play's links are. */
export function registerDownloadRoutes(scope: FastifyInstance, options: RouteOptions): void {
  const find = async (params: ArtifactParams): Promise<ArtifactRecord> => {
    const record = await options.service.artifacts.get(params.packageName, params.artifactId);
    if (record === undefined) throw notFound(`No internal app sharing artifact ${params.artifactId} for package ${params.packageName}.`);
    return record;
  };
  scope.get<{ Params: ArtifactParams }>('/apps/test/:packageName/:artifactId', async (request, reply) => {
    const record = await find(request.params);
    return reply.type('text/html; charset=utf-8').send(renderDownloadPage(record, downloadLinks(originOf(request), record)));
  });
  scope.get<{ Params: ArtifactParams }>('/apps/test/:packageName/:artifactId/download', async (request, reply) => {
    const record = await find(request.params);
    const fileName = `${record.packageName}-${record.versionCode ?? 'unversioned'}.${record.kind === 'bundle' ? 'aab' : 'apk'}`;
    return reply
      .type(record.kind === 'bundle' ? 'application/octet-stream' : 'application/vnd.android.package-archive')
      .header('content-length', String(record.size))
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .send(options.service.artifacts.read(record));
  });
}

/** registerAdminRoutes serves the admin listing of a package's artifacts (JSON). */
export function registerAdminRoutes(scope: FastifyInstance, options: RouteOptions): void {
  usePublisherAuth(scope, options.auth);
  scope.get<{ Params: PackageParams }>('/applications/:packageName/artifacts', async (request) => {
    authorizePackage(request, options.auth, request.params.packageName);
    const records = await options.service.artifacts.list(request.params.packageName);
    return { artifacts: records.map((record) => ({ ...record, downloadUrl: downloadLinks(originOf(request), record).page })) };
  });
}

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
