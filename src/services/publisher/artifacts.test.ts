import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { after, test } from 'node:test';
import { systemClock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import { ConflictError } from '../../store/store.ts';
import { StorePairs } from '../../store/store-pairs.fixture.ts';
import { ARTIFACT_KIND, ArtifactStore, type NewArtifact } from './artifacts.ts';

// Artifact bytes and records are kept together on every backend: no record without its bytes,
// no bytes left when the record cannot be written, orphans swept.

const pairs = new StorePairs('artifacts');
after(() => pairs.close());

/** sameIds hands out the same bytes every time, so a second artifact collides with the first. */
const sameIds: IdSource = { bytes: (n) => Buffer.alloc(n, 7) };

async function received(bytes: string): Promise<NewArtifact> {
  const path = join(await pairs.tempDir(), 'spool');
  writeFileSync(path, bytes);
  return {
    kind: 'apk',
    packageName: 'com.example.kept',
    path,
    size: bytes.length,
    sha256: '00',
    contentType: 'application/octet-stream',
    inspection: { manifest: { packageName: 'com.example.kept', versionCode: 1, versionName: '1' }, certificate: undefined },
    certificate: Buffer.from('not a certificate'),
    certificateSubject: '',
  } as NewArtifact;
}

for (const [name, open] of pairs.backends) {
  test(`artifacts (${name}): kept through one replica, read through the other; a failed record write leaves no bytes; sweep removes orphans`, async () => {
    const [a, b] = await open();
    const first = await new ArtifactStore(a, systemClock, sameIds).create(await received('first bytes'));
    const onB = new ArtifactStore(b, systemClock, sameIds);
    assert.equal((await buffer(onB.read((await onB.get('com.example.kept', first.id))!))).toString(), 'first bytes');

    // The same id again: the record write fails (create-only), and the bytes it wrote are gone.
    await b.files.remove(`publisher/artifacts/${first.file}`);
    await assert.rejects(onB.create(await received('second bytes')), ConflictError);
    assert.equal(await a.files.size(`publisher/artifacts/${first.file}`), undefined);

    // A file no record names (a crash between the two writes) is swept, unless it is young on a
    // shared store (another replica may be about to record it); named ones stay.
    await a.transact((tx) => tx.delete(ARTIFACT_KIND, `com.example.kept/${first.id}`));
    await a.files.write(`publisher/artifacts/${first.file}`, Readable.from([Buffer.from('orphan')]));
    const kept = await new ArtifactStore(a, systemClock, { bytes: (n) => Buffer.alloc(n, 9) }).create(await received('kept'));
    await onB.sweep();
    assert.equal(await b.files.size(`publisher/artifacts/${first.file}`), a.leases.shared ? 6 : undefined);
    assert.equal(await b.files.size(`publisher/artifacts/${kept.file}`), 4);
  });
}
