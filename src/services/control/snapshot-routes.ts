/**
 * The whole state as one file (`/_fogbank/snapshot`) and back, and `/_fogbank/reset`: the admin
 * API over store/snapshots.ts. A snapshot is written to a temporary file before it is sent: while
 * one is taken every write waits, so a client that reads slowly must not hold the store.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../../core/control-plane.ts';
import { SnapshotError } from '../../store/snapshot-format.ts';
import { ControlError } from './errors.ts';

/** SNAPSHOT_MEDIA_TYPES are the bodies `PUT /_fogbank/snapshot` takes, streamed, never buffered. */
const SNAPSHOT_MEDIA_TYPES = ['application/gzip', 'application/octet-stream'];

/** registerSnapshotRoutes adds the snapshot, restore and reset routes. */
export function registerSnapshotRoutes(app: FastifyInstance, control: ControlPlane): void {
  app.addContentTypeParser(SNAPSHOT_MEDIA_TYPES, (_request, payload, done) => done(null, payload));

  app.get('/_fogbank/snapshot', async (_request, reply) => {
    const dir = mkdtempSync(join(tmpdir(), 'fogbank-snapshot-'));
    const file = join(dir, 'snapshot.gz');
    try {
      await control.snapshots.save(createWriteStream(file));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const stream = createReadStream(file);
    stream.on('close', () => rmSync(dir, { recursive: true, force: true }));
    return reply.header('content-type', 'application/gzip').header('content-disposition', 'attachment; filename="fogbank-snapshot.gz"').send(stream);
  });

  app.put('/_fogbank/snapshot', async (request) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!SNAPSHOT_MEDIA_TYPES.includes(type))
      throw new ControlError(415, `a snapshot is sent as ${SNAPSHOT_MEDIA_TYPES.join(' or ')}, not '${type || 'no content type'}'`);
    try {
      return await control.snapshots.restore(request.body as Readable);
    } catch (error) {
      if (error instanceof SnapshotError) throw new ControlError(400, error.message);
      throw error;
    }
  });

  app.post('/_fogbank/reset', async () => ({ revision: await control.reset() }));
}
