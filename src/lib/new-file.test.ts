import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { test } from 'node:test';
import { tempDir } from '../testing/temp.ts';
import { writeNewFile } from './new-file.ts';

test('writeNewFile writes the bytes through the transforms into a new file', async () => {
  const dir = tempDir('new-file');
  const upper = new Transform({ transform: (chunk: Buffer, _encoding, callback) => callback(null, chunk.toString().toUpperCase()) });
  await writeNewFile(Readable.from([Buffer.from('abc'), Buffer.from('def')]), join(dir, 'f'), upper);
  assert.equal(readFileSync(join(dir, 'f'), 'utf8'), 'ABCDEF');
  await assert.rejects(writeNewFile(Readable.from([Buffer.from('x')]), join(dir, 'f')), { code: 'EEXIST' });
  assert.equal(readFileSync(join(dir, 'f'), 'utf8'), 'ABCDEF');
});

test('a source failing before the file is even open leaves no file behind, however the open races', async () => {
  const dir = tempDir('new-file');
  const failures = Array.from({ length: 200 }, async (_, i) => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('gone'));
      },
    });
    await assert.rejects(writeNewFile(failing, join(dir, `f${i}`)), /gone/);
  });
  await Promise.all(failures);
  assert.deepEqual(readdirSync(dir), []);
});
