import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { after, describe, it, test } from 'node:test';
import { MemoryStore } from './memory-store.ts';
import { chunks, pattern, readAll, StorePairs } from './store-pairs.fixture.ts';
import { UPLOAD_PIECE, UploadOffsetError } from './upload-bytes.ts';

// Upload bytes behave the same on every backend; on PostgreSQL, across replicas too.

const pairs = new StorePairs('uploads');
after(() => pairs.close());

for (const [name, open] of pairs.backends) {
  describe(`upload bytes: ${name}`, () => {
    it('appends chunks in order and reads them back from the other replica', async () => {
      const [a, b] = await open();
      const id = 'projects/p/uploads/1 ünïcode';
      assert.equal(await b.uploads.size(id), 0);
      assert.deepEqual(await readAll(b.uploads.read(id)), Buffer.alloc(0));
      assert.equal(await a.uploads.append(id, 0, chunks([Buffer.from('hel'), Buffer.from('lo ')])), 6);
      assert.equal(await b.uploads.append(id, 6, chunks([new Uint8Array([0, 255, 1])])), 9);
      assert.equal(await a.uploads.append(id, 9, chunks([Buffer.from('world')])), 14);
      assert.equal(await a.uploads.append(id, 14, chunks([])), 14);
      assert.equal(await a.uploads.size(id), 14);
      assert.deepEqual(await readAll(b.uploads.read(id)), Buffer.concat([Buffer.from('hello '), Buffer.from([0, 255, 1]), Buffer.from('world')]));
      await b.uploads.remove(id);
      assert.equal(await a.uploads.size(id), 0);
    });

    it('streams pieces larger than one commit step, and reads them back in order', async () => {
      const [a, b] = await open();
      const first = pattern(UPLOAD_PIECE * 2 + 12345, 1);
      const second = pattern(UPLOAD_PIECE + 7, 2);
      // Odd-sized source chunks straddle the piece boundaries.
      const split = (bytes: Buffer, step: number): Buffer[] =>
        Array.from({ length: Math.ceil(bytes.length / step) }, (_, i) => bytes.subarray(i * step, (i + 1) * step));
      assert.equal(await a.uploads.append('big', 0, chunks(split(first, 65_537))), first.length);
      assert.equal(await b.uploads.append('big', first.length, chunks(split(second, 300_001))), first.length + second.length);
      assert.ok((await readAll(a.uploads.read('big'))).equals(Buffer.concat([first, second])));
    });

    it('keeps every byte a failing source delivered before it failed, and rethrows its error', async () => {
      const [a, b] = await open();
      const sent = pattern(UPLOAD_PIECE + 1000);
      await assert.rejects(
        a.uploads.append('cut', 0, chunks([sent.subarray(0, 600_000), sent.subarray(600_000)], new Error('client went away'))),
        /client went away/,
      );
      assert.equal(await b.uploads.size('cut'), sent.length);
      assert.ok((await readAll(b.uploads.read('cut'))).equals(sent));
    });

    it('refuses a chunk that does not continue the upload, and one of two racing chunks', async () => {
      const [a, b] = await open();
      await a.uploads.append('u', 0, chunks([Buffer.from('abc')]));
      await assert.rejects(b.uploads.append('u', 0, chunks([Buffer.from('abc')])), (error: unknown) => {
        assert.ok(error instanceof UploadOffsetError);
        assert.equal(error.message, 'upload u holds 3 bytes; a chunk at offset 0 does not continue it');
        return true;
      });
      await assert.rejects(b.uploads.append('u', 7, chunks([Buffer.from('x')])), { name: 'UploadOffsetError', size: 3 });
      const racing = await Promise.allSettled([a.uploads.append('u', 3, chunks([Buffer.from('de')])), b.uploads.append('u', 3, chunks([Buffer.from('DE')]))]);
      assert.equal(racing.filter((outcome) => outcome.status === 'fulfilled').length, 1);
      assert.equal(await a.uploads.size('u'), 5);
      assert.match((await readAll(b.uploads.read('u'))).toString(), /^abc(de|DE)$/);
    });

    it('copies an upload to a local file, which outlives the upload', async () => {
      const [a, b] = await open();
      const bytes = pattern(UPLOAD_PIECE + 99, 3);
      await a.uploads.append('copied', 0, chunks([bytes]));
      const dir = await pairs.tempDir();
      await b.uploads.copyTo('copied', join(dir, 'spool'));
      await b.uploads.remove('copied');
      assert.ok(readFileSync(join(dir, 'spool')).equals(bytes));
      await assert.rejects(b.uploads.copyTo('copied', join(dir, 'spool')), { code: 'EEXIST' });
    });

    it('sweeps the uploads under a prefix that no session keeps', async () => {
      const [a, b] = await open();
      for (const id of ['fam/keep', 'fam/orphan', 'other/x']) await a.uploads.append(id, 0, chunks([Buffer.from(id)]));
      let asked: readonly string[] = [];
      const removed = await b.uploads.sweep('fam/', async (ids) => {
        asked = ids;
        return new Set(['fam/keep']);
      });
      assert.equal(removed, 1);
      assert.deepEqual([...asked].sort(), ['fam/keep', 'fam/orphan']);
      assert.equal(await a.uploads.size('fam/orphan'), 0);
      assert.equal(await a.uploads.size('fam/keep'), 8);
      assert.equal(await a.uploads.size('other/x'), 7);
    });
  });
}

test('the memory store keeps upload bytes in a temporary directory, removed when it closes', async () => {
  const store = new MemoryStore();
  await store.uploads.append('m', 0, chunks([Buffer.from('bytes on disk')]));
  const dir = store.uploads.directory();
  assert.deepEqual(readdirSync(dir), [Buffer.from('m').toString('hex')]);
  await store.close();
  assert.equal(existsSync(dir), false);
});
