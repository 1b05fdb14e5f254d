import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import yauzl from 'yauzl';
import { Random } from './random.ts';
import { fuzzZip, type ZipVariant } from './zips.ts';

/** methodsOf lists each entry of an archive with its compression method, as yauzl reads the central directory. */
function methodsOf(zip: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error !== null || archive === undefined) return reject(error);
      const seen: string[] = [];
      archive.on('entry', (entry: yauzl.Entry) => {
        seen.push(`${entry.fileName}:${entry.compressionMethod}`);
        archive.readEntry();
      });
      archive.on('end', () => resolve(seen));
      archive.on('error', reject);
      archive.readEntry();
    });
  });
}

describe("the fuzzer's archives are what they claim to be", () => {
  const cases: [ZipVariant, 'bundle' | 'apk', string[]][] = [
    ['stored', 'apk', ['AndroidManifest.xml:0', 'classes.dex:0', 'resources.arsc:0']],
    ['deflated', 'apk', ['AndroidManifest.xml:8', 'classes.dex:8', 'resources.arsc:8']],
    ['mixed', 'bundle', ['BundleConfig.pb:0', 'base/manifest/AndroidManifest.xml:8', 'base/dex/classes.dex:0', 'base/resources.pb:8']],
  ];
  for (const [variant, kind, methods] of cases) {
    it(`a ${variant} ${kind} is a valid archive with exactly those methods`, async () => {
      assert.deepEqual(await methodsOf(fuzzZip(kind, variant, new Random(7))), methods);
    });
  }

  it('an unsupported method is written into the headers as chosen', async () => {
    const methods = await methodsOf(fuzzZip('apk', 'unsupported method', new Random(3)));
    assert.equal(methods.filter((entry) => !/:(0)$/.test(entry)).length, 1, methods.join());
  });
});
