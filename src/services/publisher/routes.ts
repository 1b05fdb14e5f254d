/**
 * The publisher's route table, registered once under each spelling of the API base
 * (`/androidpublisher/v3` and the spec's `/publisher/v3`, see API_PATHS), in three forms: the
 * upload address (`/upload/…`, bodies streamed, never parsed), the metadata address, and
 * fogbank's own download pages and admin listing under `/_fogbank/publisher`.
 */

import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../core/auth.ts';
import { hexId, type IdSource } from '../../core/ids.ts';
import type { ArtifactRecord } from './artifacts.ts';
import { authorizePackage, usePublisherAuth } from './authorize.ts';
import { renderDownloadPage } from './download-page.ts';
import { usePublisherNotFound } from './error-serializer.ts';
import { badRequest, notFound } from './errors.ts';
import type { ArtifactKind } from './inspect-upload.ts';
import { toResource, type PublisherService } from './publisher-service.ts';
import { receiveUpload } from './receive-upload.ts';

/** FOGBANK_PREFIX is where fogbank's own publisher pages live (download pages, admin listing). */
export const FOGBANK_PREFIX = '/_fogbank/publisher';

/** ARTIFACT_PATHS maps each method's path segment to the kind it accepts. */
const ARTIFACT_PATHS: readonly (readonly [string, ArtifactKind])[] = [
  ['bundle', 'bundle'],
  ['apk', 'apk'],
];

/** RouteOptions are what the routes need from the service's assembly. */
export interface RouteOptions {
  readonly service: PublisherService;
  readonly auth: Authenticator;
  readonly ids: IdSource;
  /** Where uploads are received before inspection. */
  readonly incomingDir: string;
  /** The largest accepted upload per kind. */
  readonly maxBytes: Readonly<Record<ArtifactKind, number>>;
  readonly bodyLimit: number;
}

type PackageParams = { readonly packageName: string };
type ArtifactParams = PackageParams & { readonly artifactId: string };

/** registerUploadRoutes serves the upload address under `scope`'s prefix (`/upload/androidpublisher/v3`); bodies stream to the handler. */
export function registerUploadRoutes(scope: FastifyInstance, options: RouteOptions): void {
  // Bundles are far over core's JSON limit and are never parsed: the handler gets the stream.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  usePublisherAuth(scope, options.auth);
  usePublisherNotFound(scope, options.bodyLimit);
  for (const [segment, kind] of ARTIFACT_PATHS) {
    scope.post<{ Params: PackageParams }>(`/applications/internalappsharing/:packageName/artifacts/${segment}`, async (request, reply) => {
      const body = request.body instanceof Readable ? request.body : request.raw;
      try {
        authorizePackage(request, options.auth, request.params.packageName);
        const path = join(options.incomingDir, `${hexId(options.ids, 12)}.part`);
        await mkdir(dirname(path), { recursive: true });
        const received = await receiveUpload(request, body, { path, maxBytes: options.maxBytes[kind] });
        const record = await options.service.uploadArtifact(kind, request.params.packageName, received);
        return await reply.code(200).send(toResource(record, links(request, record).page));
      } catch (error) {
        // Let the client finish sending before it reads the answer.
        if (!body.readableEnded) body.resume();
        throw error;
      }
    });
  }
}

/** registerMetadataRoutes serves the metadata address under `scope`'s prefix: these methods take only media, so it answers 400. */
export function registerMetadataRoutes(scope: FastifyInstance, options: RouteOptions): void {
  usePublisherAuth(scope, options.auth);
  usePublisherNotFound(scope, options.bodyLimit);
  for (const [segment] of ARTIFACT_PATHS) {
    scope.post<{ Params: PackageParams }>(`/applications/internalappsharing/:packageName/artifacts/${segment}`, async (request) => {
      authorizePackage(request, options.auth, request.params.packageName);
      const uploadPath = `/upload${request.url.split('?')[0]!}`;
      throw badRequest(`Media upload is required: send the ${segment === 'bundle' ? 'bundle' : 'APK'} to the upload address ${uploadPath}.`);
    });
  }
}

/** registerDownloadRoutes serves each artifact's page and bytes under FOGBANK_PREFIX, without credentials: the unguessable link is the capability, as Play's links are. */
export function registerDownloadRoutes(scope: FastifyInstance, options: RouteOptions): void {
  usePublisherNotFound(scope, options.bodyLimit);
  const find = async (params: ArtifactParams): Promise<ArtifactRecord> => {
    const record = await options.service.artifacts.get(params.packageName, params.artifactId);
    if (record === undefined) throw notFound(`No internal app sharing artifact ${params.artifactId} for package ${params.packageName}.`);
    return record;
  };
  scope.get<{ Params: ArtifactParams }>('/apps/test/:packageName/:artifactId', async (request, reply) => {
    const record = await find(request.params);
    return reply.type('text/html; charset=utf-8').send(renderDownloadPage(record, links(request, record)));
  });
  scope.get<{ Params: ArtifactParams }>('/apps/test/:packageName/:artifactId/download', async (request, reply) => {
    const record = await find(request.params);
    const fileName = `${record.packageName}-${record.versionCode ?? 'unversioned'}.${record.kind === 'bundle' ? 'aab' : 'apk'}`;
    return reply
      .type(record.kind === 'bundle' ? 'application/octet-stream' : 'application/vnd.android.package-archive')
      .header('content-length', String(record.size))
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .header('x-goog-hash', `sha256=${Buffer.from(record.sha256, 'hex').toString('base64')}`)
      .send(createReadStream(options.service.artifacts.pathOf(record)));
  });
}

/** registerAdminRoutes serves the admin listing of a package's artifacts (JSON) under FOGBANK_PREFIX. */
export function registerAdminRoutes(scope: FastifyInstance, options: RouteOptions): void {
  usePublisherAuth(scope, options.auth);
  scope.get<{ Params: PackageParams }>('/applications/:packageName/artifacts', async (request) => {
    authorizePackage(request, options.auth, request.params.packageName);
    const records = await options.service.artifacts.list(request.params.packageName);
    return { artifacts: records.map((record) => ({ ...record, downloadUrl: links(request, record).page })) };
  });
}

/** links are an artifact's addresses on the host the client reached fogbank by. */
function links(request: FastifyRequest, record: ArtifactRecord): { page: string; file: string } {
  const page = `${request.protocol}://${request.host}${FOGBANK_PREFIX}/apps/test/${encodeURIComponent(record.packageName)}/${record.id}`;
  return { page, file: `${page}/download` };
}

