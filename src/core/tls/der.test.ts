import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitString, children, contextTag, integer, oid, readElement, sequence, time, tlv } from './der.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('DER', () => {
  it('encodes object identifiers, first two arcs together and each arc base 128', () => {
    assert.equal(hex(oid('1.2.840.10045.4.3.2')), '06082a8648ce3d040302');
    assert.equal(hex(oid('2.5.29.19')), '0603551d13');
    assert.equal(hex(oid('1.3.6.1.5.5.7.3.1')), '06082b06010505070301');
  });

  it('encodes integers minimally, with a leading zero only for a set top bit', () => {
    assert.equal(hex(integer(2)), '020102');
    assert.equal(hex(integer(0)), '020100');
    assert.equal(hex(integer(127)), '02017f');
    assert.equal(hex(integer(128)), '02020080');
    assert.equal(hex(integer(256)), '02020100');
  });

  it('writes short and long lengths', () => {
    assert.equal(hex(tlv(0x04, new Uint8Array(127))).slice(0, 4), '047f');
    assert.equal(hex(tlv(0x04, new Uint8Array(128))).slice(0, 6), '048180');
    assert.equal(hex(tlv(0x04, new Uint8Array(300))).slice(0, 8), '0482012c');
  });

  it('writes a UTCTime through 2049 and a GeneralizedTime from 2050 (RFC 5280)', () => {
    assert.equal(Buffer.from(time(new Date(Date.UTC(2036, 0, 2, 3, 4, 5)))).toString('latin1'), '\x17\x0d360102030405Z');
    assert.equal(Buffer.from(time(new Date(Date.UTC(2049, 11, 31, 23, 59, 59)))).toString('latin1'), '\x17\x0d491231235959Z');
    assert.equal(Buffer.from(time(new Date(Date.UTC(2050, 0, 1, 0, 0, 0)))).toString('latin1'), '\x18\x0f20500101000000Z');
  });

  it('tags context-specific elements, constructed or primitive, and writes bit strings with their unused bits', () => {
    assert.equal(hex(contextTag(0, integer(2), true)), 'a003020102');
    assert.equal(hex(contextTag(2, Buffer.from('a'), false)), '820161');
    assert.equal(hex(bitString(Uint8Array.from([0x86]), 1)), '03020186');
  });

  it('reads back the elements it wrote', () => {
    const der = sequence(integer(5), sequence(oid('2.5.4.3')), tlv(0x04, new Uint8Array(200)));
    const parts = children(der, readElement(der, 0));
    assert.deepEqual(
      parts.map((part) => part.tag),
      [0x02, 0x30, 0x04],
    );
    assert.equal(parts[2]!.end - parts[2]!.contentStart, 200);
    assert.throws(() => readElement(der.subarray(0, 10), 0), /truncated/);
  });
});
