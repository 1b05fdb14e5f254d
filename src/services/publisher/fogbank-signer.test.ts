import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { webcrypto } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from '../../testing/temp.ts';
import { ManualClock } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { MemoryStore } from '../../store/index.ts';
import { FogbankSigner, makeRsaKeys, SIGNING_IDENTITY_KIND } from './fogbank-signer.ts';
import { certificateFingerprint } from './jar-signature.ts';

describe('fogbank signing identity', () => {
  const work = tempDir('signer');
  const stores: MemoryStore[] = [];
  const newStore = (): MemoryStore => {
    const store = new MemoryStore({});
    stores.push(store);
    return store;
  };
  after(async () => {
    for (const store of stores) await store.close();
  });
  const signer = (store: MemoryStore, dir: string, seed: string) => new FogbankSigner(store, join(work, dir), new ManualClock(), seededIds(seed));

  test('made once per store, kept across restarts, copied where openssl reads it, fingerprinted as openssl prints it', async () => {
    const store = newStore();
    const first = await signer(store, 'a', 'signer').certificate();
    const again = await signer(store, 'a', 'other').certificate();
    assert.ok(first.equals(again));
    const printed = execFileSync('openssl', ['x509', '-in', join(work, 'a', 'signing-certificate.pem'), '-noout', '-fingerprint', '-sha256', '-subject'], {
      encoding: 'utf8',
    });
    assert.match(printed, new RegExp(`Fingerprint=${certificateFingerprint(first)}\\n`, 'i'));
    assert.match(printed, /subject=CN ?= ?fogbank internal app sharing/);
    const other = await signer(newStore(), 'b', 'signer').certificate();
    assert.notEqual(certificateFingerprint(other), certificateFingerprint(first), 'another store, another identity');
  });

  test('replicas sharing a store agree on one identity, even when both make one at once', async () => {
    const store = newStore();
    const [one, two] = await Promise.all([signer(store, 'replica-1', 'one').certificate(), signer(store, 'replica-2', 'two').certificate()]);
    assert.ok(one.equals(two));
    assert.equal(
      readFileSync(join(work, 'replica-1', 'signing-certificate.pem'), 'utf8'),
      readFileSync(join(work, 'replica-2', 'signing-certificate.pem'), 'utf8'),
    );
    assert.equal((await store.list(SIGNING_IDENTITY_KIND)).length, 1);
  });

  test('a data directory whose identity predates the store keeps it', async () => {
    const earlier = await signer(newStore(), 'legacy', 'legacy').certificate();
    const store = newStore();
    const taken = await signer(store, 'legacy', 'fresh').certificate();
    assert.ok(taken.equals(earlier), 'the files in the data directory were taken over');
    assert.ok((await signer(store, 'elsewhere', 'third').certificate()).equals(earlier), 'and recorded in the store');
  });

  test('an identity prepared ahead of need writes nothing, and is the one the first use records', async () => {
    const store = newStore();
    let made = 0;
    const counting = (): Promise<webcrypto.CryptoKeyPair> => {
      made++;
      return makeRsaKeys();
    };
    const early = new FogbankSigner(store, join(work, 'prepared'), new ManualClock(), seededIds('prepared'), counting);
    await early.prepare();
    await early.prepare();
    assert.equal(made, 1, 'one key pair made');
    assert.deepEqual(await store.list(SIGNING_IDENTITY_KIND), [], 'nothing written to the store');
    assert.equal(existsSync(join(work, 'prepared')), false, 'nothing written to the data directory');
    const first = await early.certificate();
    assert.equal(made, 1, 'the first use made no other');
    assert.ok((await signer(store, 'prepared-again', 'other').certificate()).equals(first), 'and recorded it');
  });

  test('a store that has an identity by the first use keeps it over the prepared one', async () => {
    const store = newStore();
    const early = signer(store, 'late-a', 'late-a');
    await early.prepare();
    const recorded = await signer(store, 'late-b', 'late-b').certificate();
    assert.ok((await early.certificate()).equals(recorded));
  });
});
