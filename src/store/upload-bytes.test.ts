import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MemoryStore } from './memory-store.ts';
import { startPostgres, type PostgresServer } from './postgres-server.fixture.ts';
import { PostgresStore } from './postgres-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';
import { UploadOffsetError } from './upload-bytes.ts';

// Upload bytes behave the same on every backend; on PostgreSQL, across replicas too.

const dirs: string[] = [];
let postgres: Promise<PostgresServer> | undefined;
let databases = 0;
const opened: Store[] = [];

after(async () => {
  await Promise.all(opened.map((store) => store.close()));
  if (postgres !== undefined) await (await postgres).stop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Each backend opens a pair of stores on the same state: two replicas where that exists. */
const backends: [string, () => Promise<[Store, Store]>][] = [
  ['memory', async () => {
    const store = new MemoryStore();
    opened.push(store);
    return [store, store];
  }],
  ['sqlite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fogbank-uploads-'));
    dirs.push(dir);
    const store = SqliteStore.open(join(dir, 'fogbank.db'));
    opened.push(store);
    return [store, store];
  }],
  ['postgres', async () => {
    const server = await (postgres ??= startPostgres());
    const url = await server.createDatabase(`uploads_${++databases}`);
    const a = await PostgresStore.open(url);
    const b = await PostgresStore.open(url);
    opened.push(a, b);
    return [a, b];
  }],
];

for (const [name, open] of backends) {
  describe(`upload bytes: ${name}`, () => {
    it('appends chunks in order and reads them back from the other replica', async () => {
      const [a, b] = await open();
      const id = 'projects/p/uploads/1 ünïcode';
      assert.equal(await b.uploads.size(id), 0);
      assert.deepEqual(await b.uploads.read(id), Buffer.alloc(0));
      assert.equal(await a.uploads.append(id, 0, Buffer.from('hello ')), 6);
      assert.equal(await b.uploads.append(id, 6, new Uint8Array([0, 255, 1])), 9);
      assert.equal(await a.uploads.append(id, 9, Buffer.from('world')), 14);
      assert.equal(await a.uploads.size(id), 14);
      assert.deepEqual(await b.uploads.read(id), Buffer.concat([Buffer.from('hello '), Buffer.from([0, 255, 1]), Buffer.from('world')]));
      await b.uploads.remove(id);
      assert.equal(await a.uploads.size(id), 0);
    });

    it('refuses a chunk that does not continue the upload, and one of two racing chunks', async () => {
      const [a, b] = await open();
      await a.uploads.append('u', 0, Buffer.from('abc'));
      await assert.rejects(b.uploads.append('u', 0, Buffer.from('abc')), (error: unknown) => {
        assert.ok(error instanceof UploadOffsetError);
        assert.equal(error.message, 'upload u holds 3 bytes; a chunk at offset 0 does not continue it');
        return true;
      });
      await assert.rejects(b.uploads.append('u', 7, Buffer.from('x')), { name: 'UploadOffsetError', size: 3 });
      const racing = await Promise.allSettled([a.uploads.append('u', 3, Buffer.from('de')), b.uploads.append('u', 3, Buffer.from('DE'))]);
      assert.equal(racing.filter((outcome) => outcome.status === 'fulfilled').length, 1);
      assert.equal(await a.uploads.size('u'), 5);
      assert.match((await b.uploads.read('u')).toString(), /^abc(de|DE)$/);
    });
  });
}
