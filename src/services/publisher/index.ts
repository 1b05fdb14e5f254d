import type { FastifyInstance } from 'fastify';
import { API_PATHS } from '../../core/identifiers.ts';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import { googleClientBanner } from '../../core/google-client-banner.ts';
import { googleEnvelopeProblem } from '../../core/google-error-envelope.ts';
import type { ServiceContext, ServiceDefinition } from '../../core/service.ts';
import { ArtifactStore } from './artifacts.ts';
import { DOWNLOAD_PREFIX } from './download-page.ts';
import { renderPublisherError, usePublisherErrors } from './error-serializer.ts';
import { FogbankSigner } from './fogbank-signer.ts';
import { PublisherService } from './publisher-service.ts';
import { openFileArea, UploadEngine } from '../../core/uploads/index.ts';
import { registerAdminRoutes, registerDownloadRoutes, registerMetadataRoutes, registerUploadRoutes, type RouteOptions } from './routes.ts';
import { artifactUploadMethod } from './upload-methods.ts';

/** DEFAULT_UPLOAD_LIMIT is the largest bundle accepted when none is configured: 2 GiB, well below Play's 10 GiB. */
export const DEFAULT_UPLOAD_LIMIT = 2 * 1024 ** 3;

/** APK_UPLOAD_LIMIT is Play's own limit for uploadapk (discovery `maxSize` 1073741824). */
export const APK_UPLOAD_LIMIT = 1024 ** 3;

/** PUBLISHER_BASES are the API base paths in both spellings (`/androidpublisher/v3`, `/publisher/v3`). */
const PUBLISHER_BASES: readonly string[] = API_PATHS.terms.filter((term) => term.real === '/androidpublisher/v3').flatMap((term) => [term.real, term.spec]);

/** publisherService is the publishing API family (spec E): internal app sharing uploads of bundles and APKs. */
export const publisherService: ServiceDefinition = {
  name: 'publisher',
  pathPrefixes: [...PUBLISHER_BASES, ...PUBLISHER_BASES.map((base) => `/upload${base}`), ...PUBLISHER_BASES.map((base) => `/resumable/upload${base}`), DOWNLOAD_PREFIX],
  renderError: renderPublisherError,
  errorBodyProblem: (status: number, body: unknown) => googleEnvelopeProblem(status, body, true),
  banner: (site) => googleClientBanner(site, 'publisher (Android Publisher API)', '/androidpublisher/v3', 'androidpublisher'),
  async register(app: FastifyInstance, context: ServiceContext) {
    const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const area = openFileArea(context.dataDir, 'publisher');
    const engine = new UploadEngine({ family: 'publisher', store: context.store, clock: context.clock, ids: context.ids, area });
    await engine.open();
    const artifacts = new ArtifactStore(context.store, context.clock, context.ids);
    await artifacts.sweep();
    const service = new PublisherService(artifacts, new FogbankSigner(context.store, area.dir, context.clock, context.ids));
    const limit = context.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
    const options: RouteOptions = {
      service,
      auth: context.auth,
      engine,
      methods: { bundle: artifactUploadMethod('bundle', service, context.auth, limit), apk: artifactUploadMethod('apk', service, context.auth, Math.min(limit, APK_UPLOAD_LIMIT)) },
      bodyLimit,
    };
    usePublisherErrors(app, bodyLimit);
    for (const base of PUBLISHER_BASES) {
      await app.register(async (scope) => registerUploadRoutes(scope, options, false), { prefix: `/upload${base}` });
      await app.register(async (scope) => registerUploadRoutes(scope, options, true), { prefix: `/resumable/upload${base}` });
      await app.register(async (scope) => registerMetadataRoutes(scope, options), { prefix: base });
    }
    await app.register(
      async (scope) => {
        await scope.register(async (inner) => registerDownloadRoutes(inner, options));
        await scope.register(async (inner) => registerAdminRoutes(inner, options));
      },
      { prefix: DOWNLOAD_PREFIX },
    );
    return {
      async close() {
        area.close();
      },
    };
  },
};
