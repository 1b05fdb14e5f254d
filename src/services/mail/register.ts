import type { FastifyInstance } from 'fastify';
import { optionValue } from '../../core/family-options.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { openFileArea, UploadEngine } from '../../core/uploads/index.ts';
import { MAIL_PREFIXES } from './prefixes.ts';
import { MailboxService } from './mailbox-service.ts';
import { openMessageFiles } from './message-files.ts';
import { MAIL_MAX_RECIPIENTS_OPTION, MAIL_RELAY_OPTION } from './options.ts';
import { Relay } from './relay.ts';
import { registerMetadataRoutes, registerUploadRoutes, type MailRoutes } from './routes.ts';

/**
 * registerMail builds the mail family's app (mailService.register, loaded with the family's first
 * request): the metadata routes and the upload addresses, after sweeping raw message files a
 * previous run left without records.
 */
export async function registerMail(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle> {
  const area = openFileArea(context.dataDir, 'mail');
  const engine = new UploadEngine({
    family: 'mail',
    store: context.store,
    clock: context.clock,
    ids: context.ids,
    area,
    ...(context.uploadDeadlineMs === undefined ? {} : { completionDeadlineMs: context.uploadDeadlineMs }),
  });
  await engine.open();
  const files = await openMessageFiles(context.store);
  const relayUrl = optionValue(MAIL_RELAY_OPTION, context.options);
  const relay = relayUrl === undefined ? undefined : new Relay(relayUrl, context.store);
  const routes: MailRoutes = {
    auth: context.auth,
    compose: loadOnFirstUse(
      async () =>
        new (await import('./compose-service.ts')).ComposeService(
          context.store,
          context.clock,
          context.ids,
          files,
          relay,
          optionValue(MAIL_MAX_RECIPIENTS_OPTION, context.options),
        ),
    ),
    mailboxes: new MailboxService(context.store, context.clock, files),
  };
  await app.register(async (scope) => registerMetadataRoutes(scope, routes), { prefix: MAIL_PREFIXES.metadata });
  for (const [prefix, protocol] of [
    [MAIL_PREFIXES.upload, undefined],
    [MAIL_PREFIXES.resumable, 'resumable'],
  ] as const) {
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
      // Uploads still being processed are answered now: the shutdown does not wait for them.
      engine.close();
      await relay?.close();
      area.close();
    },
    // The MIME stack the first send or insert loads; nothing is written.
    warmUp: async () => {
      await routes.compose();
    },
  };
}
