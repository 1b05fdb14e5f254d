import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { FileExistsError, FileMissingError } from './file-bytes.ts';
import { MemoryStore } from './memory-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { chunks, pattern, readAll, StorePairs } from './store-pairs.fixture.ts';
import { UPLOAD_PIECE } from './upload-bytes.ts';

// Files behave the same on every backend; on PostgreSQL, across replicas too.

const pairs = new StorePairs('files');
after(() => pairs.close());

for (const [name, open] of pairs.backends) {
  describe(`files: ${name}`, () => {
    it('writes a file through one replica and reads it, whole and from any offset, through the other', async () => {
      const [a, b] = await open();
      const bytes = pattern(UPLOAD_PIECE * 2 + 4321, 5);
      const split = Array.from({ length: Math.ceil(bytes.length / 70_001) }, (_, i) => bytes.subarray(i * 70_001, (i + 1) * 70_001));
      assert.equal(await b.files.size('fam/dir/big.bin'), undefined);
      assert.equal(await a.files.write('fam/dir/big.bin', chunks(split)), bytes.length);
      assert.equal(await b.files.size('fam/dir/big.bin'), bytes.length);
      assert.ok((await readAll(b.files.read('fam/dir/big.bin'))).equals(bytes));
      for (const start of [1, 70_001, UPLOAD_PIECE - 1, UPLOAD_PIECE, UPLOAD_PIECE + 1, 2 * UPLOAD_PIECE + 4320, bytes.length]) {
        assert.ok((await readAll(b.files.read('fam/dir/big.bin', start))).equals(bytes.subarray(start)), `from ${start}`);
      }
      assert.equal(await a.files.write('fam/empty', chunks([])), 0);
      assert.deepEqual(await readAll(b.files.read('fam/empty')), Buffer.alloc(0));
      await b.files.remove('fam/dir/big.bin');
      await b.files.remove('fam/dir/big.bin');
      assert.equal(await a.files.size('fam/dir/big.bin'), undefined);
      await assert.rejects(
        readAll(a.files.read('fam/dir/big.bin')),
        (error: unknown) => error instanceof FileMissingError && error.message === 'file fam/dir/big.bin does not exist',
      );
    });

    it('never overwrites a file, and leaves nothing of a write whose source failed', async () => {
      const [a, b] = await open();
      await a.files.write('fam/one', chunks([Buffer.from('first')]));
      await assert.rejects(b.files.write('fam/one', chunks([Buffer.from('second')])), FileExistsError);
      assert.equal((await readAll(a.files.read('fam/one'))).toString(), 'first');
      await assert.rejects(a.files.write('fam/cut', chunks([pattern(UPLOAD_PIECE + 10)], new Error('client went away'))), /client went away/);
      assert.equal(await b.files.size('fam/cut'), undefined);
      await assert.rejects(readAll(b.files.read('fam/cut')), FileMissingError);
      // The id is free again.
      assert.equal(await b.files.write('fam/cut', chunks([Buffer.from('again')])), 5);
    });

    it('adopts local files (moved or linked) and copies files', async () => {
      const [a, b] = await open();
      const dir = await pairs.tempDir();
      const bytes = pattern(UPLOAD_PIECE + 77, 9);
      const other = join(dir, 'other');
      writeFileSync(other, 'other');
      for (const how of ['move', 'link'] as const) {
        const path = join(dir, `spool-${how}`);
        writeFileSync(path, bytes);
        assert.equal(await a.files.adopt(`fam/adopted-${how}`, path, how), bytes.length);
        if (how === 'link') assert.ok(existsSync(path), 'a linked file stays where it was');
        assert.ok((await readAll(b.files.read(`fam/adopted-${how}`))).equals(bytes));
        await assert.rejects(a.files.adopt(`fam/adopted-${how}`, other, 'link'), FileExistsError);
      }
      assert.equal(await b.files.copy('fam/adopted-link', 'fam/copy'), bytes.length);
      await a.files.remove('fam/adopted-link');
      assert.ok((await readAll(b.files.read('fam/copy'))).equals(bytes));
      await assert.rejects(a.files.copy('fam/adopted-link', 'fam/copy2'), FileMissingError);
      await assert.rejects(a.files.copy('fam/copy', 'fam/adopted-move'), FileExistsError);
      await assert.rejects(a.files.adopt('fam/nothing', join(dir, 'absent'), 'move'), { code: 'ENOENT' });
      assert.equal(await b.files.size('fam/nothing'), undefined);
    });

    it('sweeps the files under a folder that no record names, sparing fresh ones when asked', async () => {
      const [a, b] = await open();
      for (const id of ['sw/keep', 'sw/deep/orphan', 'sw/orphan', 'swx/other', 'other/x']) await a.files.write(id, chunks([Buffer.from(id)]));
      let asked: readonly string[] = [];
      assert.equal(await b.files.sweep('sw/', async () => new Set(), 60_000), 0, 'files written just now are spared by a grace');
      const removed = await b.files.sweep(
        'sw/',
        async (ids) => {
          asked = ids;
          return new Set(['sw/keep']);
        },
        0,
      );
      assert.equal(removed, 2);
      assert.deepEqual([...asked].sort(), ['sw/deep/orphan', 'sw/keep', 'sw/orphan']);
      assert.equal(await a.files.size('sw/orphan'), undefined);
      assert.equal(await a.files.size('sw/deep/orphan'), undefined);
      assert.equal(await a.files.size('sw/keep'), 7);
      assert.equal(await a.files.size('swx/other'), 9);
      assert.equal(await a.files.size('other/x'), 7);
    });

    it('refuses ids that are not relative paths of plain names', async () => {
      const [a] = await open();
      for (const id of ['../x', 'a/../b', '/abs', 'a//b', 'a/', '', 'a/./b', 'spa ce']) {
        await assert.rejects(a.files.write(id, chunks([Buffer.from('x')])), /invalid file id/, id);
      }
      await assert.rejects(
        a.files.sweep('no-slash', async () => new Set()),
        /invalid file folder/,
      );
    });
  });
}

test('the SQLite store keeps a file at its id under the database directory', async () => {
  const dir = await pairs.tempDir();
  const store = SqliteStore.open(join(dir, 'fogbank.db'));
  try {
    await store.files.write('mail/raw/m.eml', chunks([Buffer.from('x')]));
    assert.deepEqual(readdirSync(join(dir, 'mail', 'raw')), ['m.eml']);
  } finally {
    await store.close();
  }
});

test('the memory store keeps files in a temporary directory, removed when it closes', async () => {
  const store = new MemoryStore();
  await store.files.write('f/m', chunks([Buffer.from('bytes on disk')]));
  const dir = store.files.directory();
  assert.deepEqual(readdirSync(join(dir, 'f')), ['m']);
  await store.close();
  assert.equal(existsSync(dir), false);
});
