import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';
import { bundleItems, zipBuffer } from './artifact-builder.fixture.ts';
import { DOWNLOAD_PREFIX, downloadLinks, internalSharingArtifacts } from './public.ts';

describe("the publisher's face reads the artifacts the API stored", () => {
  let server: RunningFogbank;

  before(async () => {
    server = await startFogbank({ tokens: [{ token: 'releaser', email: 'releaser@example.com', scopes: ['androidpublisher'], permissions: [] }] });
    server.control.clock.freeze();
    for (const [packageName, versionCode] of [
      ['com.example.one', 1],
      ['com.example.two', 2],
      ['com.example.one', 3],
    ] as const) {
      const upload = await server.app.inject({
        method: 'POST',
        url: `/upload/androidpublisher/v3/applications/internalappsharing/${packageName}/artifacts/bundle?uploadType=media`,
        headers: { authorization: 'Bearer releaser', 'content-type': 'application/octet-stream' },
        payload: await zipBuffer(bundleItems({ packageName, versionCode })),
      });
      assert.equal(upload.statusCode, 200, upload.body);
      server.control.clock.advance(1000);
    }
  });
  after(async () => {
    await server.close();
  });

  it('lists every package, or the packages named, newest upload first, without the store file', async () => {
    const all = await internalSharingArtifacts(server.store);
    assert.deepEqual(
      all.map((artifact) => [artifact.packageName, artifact.versionCode, artifact.kind]),
      [
        ['com.example.one', 3, 'bundle'],
        ['com.example.two', 2, 'bundle'],
        ['com.example.one', 1, 'bundle'],
      ],
    );
    assert.ok(all.every((artifact) => !('file' in artifact) && /^[0-9a-f]{64}$/.test(artifact.sha256)));
    assert.deepEqual(
      (await internalSharingArtifacts(server.store, ['com.example.two'])).map((artifact) => artifact.versionCode),
      [2],
    );
  });

  it("names an artifact's download page and bytes under the family's own prefix", async () => {
    const [newest] = await internalSharingArtifacts(server.store);
    assert.ok(newest);
    const links = downloadLinks('', newest);
    assert.equal(links.page, `${DOWNLOAD_PREFIX}/apps/test/com.example.one/${newest.id}`);
    assert.equal(links.file, `${links.page}/download`);
  });
});
