import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { gzipSync, gunzipSync } from 'node:zlib';
import { MemoryStore } from './memory-store.ts';
import { SnapshotError } from './snapshot-format.ts';
import { Snapshots } from './snapshots.ts';
import { chunks, pattern, readAll, StorePairs } from './store-pairs.fixture.ts';
import type { Change, Store, StoredRecord } from './store.ts';

const FOLDERS = ['mail/', 'publisher/'];

/** save takes a snapshot of `store` into memory. */
async function save(store: Store): Promise<Buffer> {
  const sink = new PassThrough();
  const bytes = readAll(sink);
  await new Snapshots(store, { fileFolders: FOLDERS }).save(sink);
  return bytes;
}

/** restore restores `bytes` into `store`, in pieces as a socket delivers them. */
function restore(store: Store, bytes: Buffer) {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 1000) parts.push(bytes.subarray(at, at + 1000));
  return new Snapshots(store, { fileFolders: FOLDERS }).restore(chunks(parts));
}

/** everything reads a store's whole state: records, file bytes and upload bytes. */
async function everything(store: Store): Promise<{ records: StoredRecord[]; files: Record<string, string>; uploads: Record<string, string> }> {
  const records = await store.exportState(async (_revision, all) => {
    const out: StoredRecord[] = [];
    for await (const record of all()) out.push(record);
    return out;
  });
  const files: Record<string, string> = {};
  for (const id of ['mail/raw/m1', 'mail/raw/m2', 'publisher/artifacts/a1']) {
    if ((await store.files.size(id)) !== undefined) files[id] = (await readAll(store.files.read(id))).toString('base64');
  }
  const uploads: Record<string, string> = {};
  for (const id of ['mail/s1', 'publisher/s2']) {
    if ((await store.uploads.size(id)) > 0) uploads[id] = (await readAll(store.uploads.read(id))).toString('base64');
  }
  return { records, files, uploads };
}

/** seed writes records of three kinds (with updates and a delete, so revisions differ), two files and two uploads. */
async function seed(store: Store): Promise<void> {
  for (let i = 0; i < 30; i++) await store.transact((tx) => tx.put('cluster.events', `ns/e${String(i).padStart(2, '0')}`, { n: i, text: 'é\n"' }));
  await store.transact(async (tx) => {
    await tx.put('cluster.events', 'ns/e03', { n: 3, updated: true });
    await tx.delete('cluster.events', 'ns/e04');
    await tx.put('mail.messages', 'me/m1', { raw: 'mail/raw/m1', nested: { list: [1, null, 'x'] } });
    await tx.put('publisher.artifacts', 'app/a1', { file: 'publisher/artifacts/a1' });
  });
  await store.files.write('mail/raw/m1', chunks([pattern(200_000, 1)]));
  await store.files.write('publisher/artifacts/a1', chunks([pattern(3_000_000, 2)]));
  await store.uploads.append('mail/s1', 0, chunks([pattern(70_000, 3)]));
  await store.uploads.append('publisher/s2', 0, chunks([pattern(10, 4)]));
}

describe('snapshots', () => {
  const pairs = new StorePairs('snapshots');
  after(() => pairs.close());

  for (const [backend, open] of pairs.backends) {
    describe(backend, () => {
      it('gives back identical records, files and uploads after snapshot, reset and restore, with the revision above both', async () => {
        const [store, other] = await open();
        await seed(store);
        const before = await everything(store);
        const revision = await store.currentRevision();
        const bytes = await save(store);
        assert.deepEqual(JSON.parse(gunzipSync(bytes).toString('utf8').split('\n')[0]!), {
          format: 'fogbank-snapshot',
          version: 1,
          fogbank: '0.1.0',
          revision,
        });

        const resets: number[] = [];
        const seen: Change[] = [];
        await other.subscribe(revision, (change) => seen.push(change), { onReset: (at) => resets.push(at) });
        const emptied = await new Snapshots(store, { fileFolders: FOLDERS }).reset();
        assert.equal(emptied, revision + 1);
        assert.deepEqual(await everything(store), { records: [], files: {}, uploads: {} });
        assert.deepEqual(await store.list('cluster.events'), []);
        await until(() => resets.length === 1);
        assert.deepEqual(resets, [revision + 1]);

        await store.transact((tx) => tx.put('cluster.events', 'ns/new', { after: 'reset' }));
        const summary = await restore(store, bytes);
        assert.deepEqual(summary, { revision, records: 31, files: 2, uploads: 2, restoredAt: revision + 3 });
        assert.deepEqual(await everything(store), before);
        assert.deepEqual(await everything(other), before);
        assert.equal(await store.currentRevision(), revision + 3);
        assert.equal(await store.oldestResumableRevision(), revision + 3);
        await assert.rejects(store.changesSince(revision), { name: 'CompactedError' });
        // The feed goes on above the restored state.
        const next = await store.transact((tx) => tx.put('cluster.events', 'ns/later', {}));
        assert.equal(next.revision, revision + 4);
        assert.deepEqual(
          (await store.changesSince(revision + 3)).map((change) => change.key),
          ['ns/later'],
        );
      });

      it('restores a snapshot another backend took', async () => {
        const [store] = await open();
        const source = new MemoryStore();
        await seed(source);
        const expected = await everything(source);
        const fromMemory = await save(source);
        await source.close();
        await restore(store, fromMemory);
        assert.deepEqual(await everything(store), expected);
      });

      it('refuses truncated, damaged and foreign snapshots with a precise error and changes nothing', async () => {
        const [store] = await open();
        await seed(store);
        const bytes = await save(store);
        await store.transact((tx) => tx.put('cluster.events', 'ns/extra', { kept: true }));
        const before = await everything(store);
        const revision = await store.currentRevision();
        const refused = async (input: Buffer, message: string | RegExp): Promise<void> => {
          await assert.rejects(restore(store, input), (error: unknown) => {
            assert.ok(error instanceof SnapshotError, String(error));
            if (typeof message === 'string') assert.equal(error.message, message);
            else assert.match(error.message, message);
            return true;
          });
        };
        for (const cut of [0.1, 0.3, 0.5, 0.7, 0.9, 0.999].map((share) => Math.floor(bytes.length * share))) {
          await refused(bytes.subarray(0, cut), /^the snapshot is truncated: /);
        }
        await refused(bytes.subarray(0, bytes.length - 4), 'the snapshot is truncated: its gzip stream ends early');
        const damaged = Buffer.from(bytes);
        damaged[Math.floor(bytes.length / 2)]! ^= 0xff;
        await refused(damaged, /^the snapshot is (corrupt|truncated): /);
        const text = gunzipSync(bytes).toString('latin1');
        await refused(
          gzipSync(Buffer.from(text.replace('"version":1', '"version":2'), 'latin1')),
          'the snapshot has format version 2 (written by fogbank "0.1.0"); this fogbank reads version 1',
        );
        await refused(gzipSync(Buffer.from(text.replace(/\{"type":"end".*\n$/, ''), 'latin1')), 'the snapshot is truncated: it has no end frame');
        await refused(
          gzipSync(Buffer.from(text.replace('"type":"end","records":31', '"type":"end","records":32'), 'latin1')),
          'the snapshot is corrupt: its end frame counts 32 records, 2 files and 2 uploads, but it holds 31, 2 and 2',
        );
        await refused(gzipSync(Buffer.from(`${text}{"type":"end"}\n`, 'latin1')), 'the snapshot is corrupt: something follows its end frame');
        await refused(
          gzipSync(Buffer.from(text.replace('"type":"file","id":"mail/raw/m1"', '"type":"file","id":"../m1"'), 'latin1')),
          /^the snapshot is corrupt: frame \d+ names file "\.\.\/m1", which is not a valid file id$/,
        );
        await refused(gzipSync(Buffer.from('{"format":"other"}\n')), 'not a fogbank snapshot: its first frame has no "format": "fogbank-snapshot"');
        await refused(Buffer.from('{"format":"fogbank-snapshot"}\n'), 'not a fogbank snapshot: it is not gzip data');
        await refused(Buffer.alloc(0), 'not a fogbank snapshot: it is empty');
        assert.deepEqual(await everything(store), before);
        assert.equal(await store.currentRevision(), revision);
        assert.deepEqual((await store.get('cluster.events', 'ns/extra'))?.value, { kept: true });
      });

      it('keeps the previous records when replacing the state fails mid-way', async () => {
        const [store] = await open();
        await seed(store);
        const before = await everything(store);
        const revision = await store.currentRevision();
        async function* failing(): AsyncGenerator<StoredRecord> {
          yield { kind: 'k', key: 'a', value: 1, createRevision: 1, revision: 1 };
          throw new Error('the source broke');
        }
        await assert.rejects(store.replaceState(failing(), 5), /the source broke/);
        assert.deepEqual(await everything(store), before);
        assert.equal(await store.currentRevision(), revision);
        assert.equal((await store.changesSince(revision - 1)).length, 1);
      });
    });
  }
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}
