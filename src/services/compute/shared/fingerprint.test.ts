import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFingerprint, sameFingerprint } from './fingerprint.ts';

describe('fingerprints compare as bytes', () => {
  it('accepts the standard and the URL-safe alphabet, with or without padding', () => {
    const stored = 'Qo+NUh9q3Og=';
    for (const given of ['Qo+NUh9q3Og=', 'Qo-NUh9q3Og=', 'Qo-NUh9q3Og', 'Qo+NUh9q3Og']) assert.equal(sameFingerprint(given, stored), true, given);
    assert.equal(sameFingerprint('/_8=', '__8'), true);
  });

  it('rejects other bytes, other characters and impossible lengths', () => {
    assert.equal(sameFingerprint('Qo+NUh9q3Pg=', 'Qo+NUh9q3Og='), false);
    assert.equal(sameFingerprint('Qo+NUh9q3O!=', 'Qo+NUh9q3Og='), false);
    assert.equal(sameFingerprint('', 'Qo+NUh9q3Og='), false);
    assert.equal(decodeFingerprint('Qo+NUh9q3Og=='), undefined);
    assert.equal(decodeFingerprint('A'), undefined);
    assert.equal(decodeFingerprint('Qo+N Uh9q3Og='), undefined);
  });

  it('decodes to the 8 bytes the server drew', () => {
    assert.deepEqual(decodeFingerprint('Qo-NUh9q3Og'), Buffer.from([0x42, 0x8f, 0x8d, 0x52, 0x1f, 0x6a, 0xdc, 0xe8]));
  });
});
