import type { FastifyInstance } from 'fastify';
import { optionValue } from '../../core/family-options.ts';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { openFileArea, UploadEngine } from '../../core/uploads/index.ts';
import { ArtifactStore } from './artifacts.ts';
import { DOWNLOAD_PREFIX } from './download-page.ts';
import { FogbankSigner } from './fogbank-signer.ts';
import { API_BASE } from './prefixes.ts';
import { APK_UPLOAD_LIMIT, DEFAULT_UPLOAD_LIMIT, UPLOAD_LIMIT_OPTION } from './options.ts';
import { PublisherService } from './publisher-service.ts';
import { registerAdminRoutes, registerDownloadRoutes, registerMetadataRoutes, registerUploadRoutes, type RouteOptions } from './routes.ts';
import { artifactUploadMethod } from './upload-methods.ts';

/**
 * registerPublisher builds the publishing family's app (publisherService.register, loaded with
 * the family's first request): the upload, metadata, download and admin routes, after sweeping
 * artifacts a previous run left half-stored.
 */
export async function registerPublisher(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle> {
  const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const area = openFileArea(context.dataDir, 'publisher');
  const engine = new UploadEngine({
    family: 'publisher',
    store: context.store,
    clock: context.clock,
    ids: context.ids,
    area,
    ...(context.uploadDeadlineMs === undefined ? {} : { completionDeadlineMs: context.uploadDeadlineMs }),
  });
  await engine.open();
  const artifacts = new ArtifactStore(context.store, context.clock, context.ids);
  await artifacts.sweep();
  const signer = new FogbankSigner(context.store, area.dir, context.clock, context.ids);
  const service = new PublisherService(artifacts, signer);
  const limit = optionValue(UPLOAD_LIMIT_OPTION, context.options) ?? DEFAULT_UPLOAD_LIMIT;
  const options: RouteOptions = {
    service,
    auth: context.auth,
    engine,
    methods: {
      bundle: artifactUploadMethod('bundle', service, context.auth, limit),
      apk: artifactUploadMethod('apk', service, context.auth, Math.min(limit, APK_UPLOAD_LIMIT)),
    },
    bodyLimit,
  };
  await app.register(async (scope) => registerUploadRoutes(scope, options, false), { prefix: `/upload${API_BASE}` });
  await app.register(async (scope) => registerUploadRoutes(scope, options, true), { prefix: `/resumable/upload${API_BASE}` });
  await app.register(async (scope) => registerMetadataRoutes(scope, options), { prefix: API_BASE });
  await app.register(
    async (scope) => {
      await scope.register(async (inner) => registerDownloadRoutes(inner, options));
      await scope.register(async (inner) => registerAdminRoutes(inner, options));
    },
    { prefix: DOWNLOAD_PREFIX },
  );
  return {
    async close() {
      // Uploads still being processed are answered now: the shutdown does not wait for them.
      engine.close();
      area.close();
    },
    // The archive, manifest and signature readers the first upload loads, and the signing
    // identity it would make, made in memory: recording it writes to the store, which only an
    // upload should.
    warmUp: async () => {
      await import('./inspect-upload.ts');
      await signer.prepare();
    },
  };
}
