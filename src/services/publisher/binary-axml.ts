/**
 * Reading an APK's identity from its top-level AndroidManifest.xml in Android's binary XML
 * (AXML) chunk format (frameworks/base/libs/androidfw ResourceTypes.h): a string pool, then
 * element chunks whose attributes index into it. Only the root <manifest> element is read.
 */

import { invalidUpload } from './errors.ts';
import { ANDROID_NAMESPACE, type ManifestInfo } from './manifest.ts';

const RES_XML_TYPE = 0x0003;
const RES_STRING_POOL_TYPE = 0x0001;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const UTF8_FLAG = 1 << 8;
const TYPE_STRING = 0x03;
const TYPE_INT_DEC = 0x10;
const TYPE_INT_HEX = 0x11;
const NO_INDEX = 0xffffffff;

/** isBinaryXml is true when the bytes start with an AXML (RES_XML_TYPE) chunk header. */
export function isBinaryXml(bytes: Buffer): boolean {
  return bytes.length >= 8 && bytes.readUInt16LE(0) === RES_XML_TYPE && bytes.readUInt16LE(2) === 8;
}

/** decodeBinaryManifest reads package, versionCode and versionName; a 400 naming `entry` when the chunks are malformed. */
export function decodeBinaryManifest(bytes: Buffer, entry: string): ManifestInfo {
  const bad = (why: string) => invalidUpload(`The APK's ${entry} is not valid binary XML: ${why}.`);
  if (!isBinaryXml(bytes)) throw bad('it does not start with an XML chunk header');
  const end = Math.min(bytes.readUInt32LE(4), bytes.length);
  let strings: readonly string[] | undefined;
  for (let at = 8; at + 8 <= end; ) {
    const type = bytes.readUInt16LE(at);
    const headerSize = bytes.readUInt16LE(at + 2);
    const size = bytes.readUInt32LE(at + 4);
    if (size < 8 || headerSize > size || at + size > end) throw bad(`chunk at offset ${at} has an invalid size`);
    if (type === RES_STRING_POOL_TYPE) strings = readStringPool(bytes.subarray(at, at + size), bad);
    if (type === RES_XML_START_ELEMENT_TYPE) {
      if (strings === undefined) throw bad('an element comes before the string pool');
      return readManifestElement(bytes.subarray(at, at + size), headerSize, strings, entry, bad);
    }
    at += size;
  }
  throw bad('it has no root element');
}

function readStringPool(chunk: Buffer, bad: (why: string) => Error): string[] {
  if (chunk.length < 28) throw bad('the string pool header is truncated');
  const count = chunk.readUInt32LE(8);
  const flags = chunk.readUInt32LE(16);
  const stringsStart = chunk.readUInt32LE(20);
  if (28 + count * 4 > chunk.length || stringsStart > chunk.length) throw bad('the string pool is truncated');
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    let at = stringsStart + chunk.readUInt32LE(28 + i * 4);
    if (at >= chunk.length) throw bad('a string pool offset is out of range');
    if (utf8) {
      at += (chunk[at]! & 0x80) !== 0 ? 2 : 1; // UTF-16 length, unused
      let length = chunk[at]!;
      if ((length & 0x80) !== 0) length = ((length & 0x7f) << 8) | chunk[++at]!;
      at += 1;
      if (at + length > chunk.length) throw bad('a string runs past the string pool');
      strings.push(chunk.toString('utf8', at, at + length));
    } else {
      let length = chunk.readUInt16LE(at);
      if ((length & 0x8000) !== 0) {
        length = ((length & 0x7fff) << 16) | chunk.readUInt16LE(at + 2);
        at += 2;
      }
      at += 2;
      if (at + length * 2 > chunk.length) throw bad('a string runs past the string pool');
      strings.push(chunk.toString('utf16le', at, at + length * 2));
    }
  }
  return strings;
}

function readManifestElement(chunk: Buffer, headerSize: number, strings: readonly string[], entry: string, bad: (why: string) => Error): ManifestInfo {
  const ext = headerSize;
  if (ext + 20 > chunk.length) throw bad('the root element is truncated');
  const string = (index: number): string | undefined => (index === NO_INDEX ? undefined : strings[index]);
  if (string(chunk.readUInt32LE(ext + 4)) !== 'manifest') throw bad('the root element is not <manifest>');
  const attributeStart = chunk.readUInt16LE(ext + 8);
  const attributeSize = chunk.readUInt16LE(ext + 10);
  const attributeCount = chunk.readUInt16LE(ext + 12);
  if (attributeSize < 20 || ext + attributeStart + attributeCount * attributeSize > chunk.length) throw bad("the root element's attributes are truncated");
  let packageName = '';
  let versionCode: number | undefined;
  let versionName: string | undefined;
  for (let i = 0; i < attributeCount; i++) {
    const at = ext + attributeStart + i * attributeSize;
    const namespace = string(chunk.readUInt32LE(at));
    const name = string(chunk.readUInt32LE(at + 4));
    const raw = string(chunk.readUInt32LE(at + 8));
    const dataType = chunk[at + 15]!;
    const data = chunk.readUInt32LE(at + 16);
    const text = raw ?? (dataType === TYPE_STRING ? string(data) : undefined);
    if (namespace === undefined && name === 'package') packageName = text ?? '';
    if (namespace === ANDROID_NAMESPACE && name === 'versionCode') {
      versionCode = dataType === TYPE_INT_DEC || dataType === TYPE_INT_HEX ? data | 0 : Number(text);
    }
    if (namespace === ANDROID_NAMESPACE && name === 'versionName') versionName = text;
  }
  if (packageName === '') throw invalidUpload(`The APK's ${entry} has no package attribute.`);
  if (versionCode !== undefined && !Number.isSafeInteger(versionCode)) throw invalidUpload(`The APK's ${entry} has an invalid android:versionCode.`);
  return { packageName, versionCode, versionName };
}
