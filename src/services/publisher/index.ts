import { PUBLISHER_API_PATH, PUBLISHER_SCOPE_TERMS } from './identifiers.ts';
import { isUnderPrefix, versionlessPrefix } from '../../core/path-aliases.ts';
import { googleClientBanner } from '../../core/google-client-banner.ts';
import { googleEnvelopeProblem } from '../../core/google-error-envelope.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { DOWNLOAD_PREFIX } from './download-page.ts';
import { authenticatePublisher } from './authorize.ts';
import { renderPublisherError } from './error-serializer.ts';
import { UPLOAD_LIMIT_OPTION } from './options.ts';
import { API_BASE, BASE_FORMS } from './prefixes.ts';

/** PUBLISHER_ALIASES are the same addresses in the spec's spelling (`/publisher/v3`, identifiers.ts). */
const PUBLISHER_ALIASES = BASE_FORMS.map((canonical) => ({ alias: canonical.replace(API_BASE, PUBLISHER_API_PATH.spell(API_BASE, 'spec')), canonical }));

/** publisherService is the publishing API family (spec E): internal app sharing uploads of bundles and APKs. */
export const publisherService: ServiceDefinition = {
  name: 'publisher',
  // Every version of the API's addresses, in both spellings: `/androidpublisher/v9/…` is the publisher's to refuse.
  pathPrefixes: [...BASE_FORMS, DOWNLOAD_PREFIX, ...[...BASE_FORMS, ...PUBLISHER_ALIASES.map((alias) => alias.alias)].map(versionlessPrefix)],
  pathAliases: PUBLISHER_ALIASES,
  storeFileFolders: ['publisher/artifacts/'],
  scopes: PUBLISHER_SCOPE_TERMS,
  options: [UPLOAD_LIMIT_OPTION],
  renderError: renderPublisherError,
  faultEffects: ['dropAfterBytes'],
  errorBodyProblem: (status: number, body: unknown) => googleEnvelopeProblem(status, body, true),
  banner: (site) => googleClientBanner(site, 'publisher (Android Publisher API)', '/androidpublisher/v3', 'androidpublisher'),
  // Unknown paths under the API's addresses are authenticated like known ones; the download
  // pages take no credentials, so unknown paths there are simply unknown.
  screenUnknownPath(request, context) {
    if (BASE_FORMS.some((base) => isUnderPrefix(request.url, base))) authenticatePublisher(request, context.auth);
  },
  discovery: async () => [(await import('./discovery.ts')).PUBLISHER_DISCOVERY],
  async register(app, context) {
    return (await import('./register.ts')).registerPublisher(app, context);
  },
};
