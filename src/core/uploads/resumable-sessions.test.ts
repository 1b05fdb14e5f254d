import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { MemoryStore } from '../../store/memory-store.ts';
import { ResumableSessions, type SessionRecord } from './resumable-sessions.ts';

const dir = mkdtempSync(join(tmpdir(), 'fogbank-sessions-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const BYTES = randomBytes(300_000);
const SHA256 = createHash('sha256').update(BYTES).digest('hex');
const TOTAL = BYTES.length;

const chunk = (start: number, end: number) => ({ kind: 'chunk' as const, start, end: end - 1, total: TOTAL });

/** body streams `bytes` in small reads, as a socket delivers them. */
function body(bytes: Buffer): Readable {
  const reads: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 16_384) reads.push(bytes.subarray(at, at + 16_384));
  return Readable.from(reads, { objectMode: false });
}

/** failingBody delivers `bytes`, then (a moment later, as a socket's close comes) fails as a client that went away does. */
function failingBody(bytes: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield bytes;
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('the client closed the request before its body ended');
    })(),
    { objectMode: false },
  );
}

async function newSession(sessions: ResumableSessions): Promise<SessionRecord> {
  return sessions.create({ methodId: 'test', path: '/upload', context: {}, metadata: {}, mediaType: 'application/octet-stream', maxSize: TOTAL, total: TOTAL });
}

let spools = 0;
async function spooledHash(sessions: ResumableSessions, id: string): Promise<{ size: number; sha256: string }> {
  const file = await sessions.spool(id, join(dir, `spool-${++spools}`));
  return { size: file.size, sha256: file.sha256 };
}

// The last chunk's SHA-256 comes from the hash kept while the chunks arrived, or from the bytes
// when this process did not see them all: either way it is the hash of what was committed.
describe('resumable sessions: the SHA-256 of a finished upload', () => {
  test('chunks sent in order, one re-sent with an overlap: the running hash covers the committed bytes once', async () => {
    const store = new MemoryStore();
    const sessions = new ResumableSessions('test', store, new ManualClock(), seededIds('a'));
    const session = await newSession(sessions);
    await sessions.append(session, chunk(0, 100_000), body(BYTES.subarray(0, 100_000)), 100_000);
    // A client that lost the 308 re-sends from an earlier offset: the overlap is skipped.
    await sessions.append(session, chunk(50_000, 200_000), body(BYTES.subarray(50_000, 200_000)), 150_000);
    const outcome = await sessions.append(session, chunk(200_000, TOTAL), body(BYTES.subarray(200_000)), TOTAL - 200_000);
    assert.equal(outcome.kind, 'ready');
    assert.deepEqual(await spooledHash(sessions, session.id), { size: TOTAL, sha256: SHA256 });
    await store.close();
  });

  test('a chunk cut short by the client, then resumed: the hash is of what was committed', async () => {
    const store = new MemoryStore();
    const sessions = new ResumableSessions('test', store, new ManualClock(), seededIds('b'));
    const session = await newSession(sessions);
    await assert.rejects(sessions.append(session, chunk(0, 200_000), failingBody(BYTES.subarray(0, 70_000)), 200_000));
    const received = await sessions.received(session.id);
    assert.equal(received, 70_000);
    await sessions.append(session, chunk(received, TOTAL), body(BYTES.subarray(received)), TOTAL - received);
    assert.deepEqual(await spooledHash(sessions, session.id), { size: TOTAL, sha256: SHA256 });
    await store.close();
  });

  test('a session continued by another process (a restart) is hashed from its bytes', async () => {
    const store = new MemoryStore();
    const first = new ResumableSessions('test', store, new ManualClock(), seededIds('c'));
    const session = await newSession(first);
    await first.append(session, chunk(0, 120_000), body(BYTES.subarray(0, 120_000)), 120_000);
    const second = new ResumableSessions('test', store, new ManualClock(), seededIds('d'));
    await second.append(await second.get(session.id), chunk(120_000, TOTAL), body(BYTES.subarray(120_000)), TOTAL - 120_000);
    assert.deepEqual(await spooledHash(second, session.id), { size: TOTAL, sha256: SHA256 });
    // The first process saw only a prefix: its hash is not taken for the whole.
    assert.deepEqual(await spooledHash(first, session.id), { size: TOTAL, sha256: SHA256 });
    await store.close();
  });

  test('spooling twice (a completion run again) gives the same hash', async () => {
    const store = new MemoryStore();
    const sessions = new ResumableSessions('test', store, new ManualClock(), seededIds('e'));
    const session = await newSession(sessions);
    await sessions.append(session, { kind: 'whole' }, body(BYTES), TOTAL);
    assert.deepEqual(await spooledHash(sessions, session.id), { size: TOTAL, sha256: SHA256 });
    assert.deepEqual(await spooledHash(sessions, session.id), { size: TOTAL, sha256: SHA256 });
    await store.close();
  });
});
