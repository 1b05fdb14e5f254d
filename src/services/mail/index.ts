import type { FastifyInstance } from 'fastify';
import { API_PATHS } from '../../core/identifiers.ts';
import { googleClientBanner } from '../../core/google-client-banner.ts';
import { googleEnvelopeProblem } from '../../core/google-error-envelope.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import type { ServiceContext, ServiceDefinition } from '../../core/service.ts';
import { openFileArea, UploadEngine } from '../../core/uploads/index.ts';
import { renderMailError, useMailErrors } from './error-serializer.ts';
import { MailboxService } from './mailbox-service.ts';
import { MessageFiles } from './message-files.ts';
import { Relay } from './relay.ts';
import { registerMetadataRoutes, registerUploadRoutes, type MailRoutes } from './routes.ts';

const API_BASE = '/gmail/v1';

/** MAIL_PREFIXES are the metadata, upload and resumable-upload addresses, in the real spelling. */
const MAIL_PREFIXES = { metadata: API_BASE, upload: `/upload${API_BASE}`, resumable: `/resumable/upload${API_BASE}` };

/** MAIL_ALIASES are the same addresses in the spec's spelling (`/mail/v1`, identifiers.ts). */
const MAIL_ALIASES = Object.values(MAIL_PREFIXES).map((canonical) => ({ alias: canonical.replace(API_BASE, API_PATHS.spell(API_BASE, 'spec')), canonical }));

/** mailService is the mail API family (spec D, the Gmail API): send, drafts, mailboxes per recipient, over every upload protocol. */
export const mailService: ServiceDefinition = {
  name: 'mail',
  pathPrefixes: Object.values(MAIL_PREFIXES),
  pathAliases: MAIL_ALIASES,
  renderError: renderMailError,
  errorBodyProblem: (status: number, body: unknown) => googleEnvelopeProblem(status, body, true),
  banner: (site) => googleClientBanner(site, 'mail (Gmail API)', '/gmail/v1', 'gmail'),
  async register(app: FastifyInstance, context: ServiceContext) {
    const area = openFileArea(context.dataDir, 'mail');
    const engine = new UploadEngine({ family: 'mail', store: context.store, clock: context.clock, ids: context.ids, area });
    await engine.open();
    const files = new MessageFiles(context.store);
    await files.sweep();
    const relay = context.mailRelay === undefined ? undefined : new Relay(context.mailRelay, context.store);
    const routes: MailRoutes = {
      auth: context.auth,
      compose: loadOnFirstUse(async () => new (await import('./compose-service.ts')).ComposeService(context.store, context.clock, context.ids, files, relay)),
      mailboxes: new MailboxService(context.store, context.clock, files),
    };
    useMailErrors(app);
    await app.register(async (scope) => registerMetadataRoutes(scope, routes), { prefix: MAIL_PREFIXES.metadata });
    for (const [prefix, protocol] of [[MAIL_PREFIXES.upload, undefined], [MAIL_PREFIXES.resumable, 'resumable']] as const) {
      await app.register(
        async (scope) => {
          engine.streamBodies(scope);
          registerUploadRoutes(scope, engine, routes, protocol);
        },
        { prefix },
      );
    }
    return {
      async close() {
        await relay?.close();
        area.close();
      },
    };
  },
};
