import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { androidpublisher, auth as publisherAuth, type androidpublisher_v3 } from '@googleapis/androidpublisher';
import { auth as gmailAuth, gmail, type gmail_v1 } from '@googleapis/gmail';
import { bundleItems, writeZip, zeros } from '../../src/services/publisher/artifact-builder.fixture.ts';
import type { FogbankProcess } from '../harness/process.ts';
import { startReplicaPair, type ReplicaPair } from '../harness/replicas.ts';

// Files written through one `fogbank start --store postgres://…` replica are read through
// another: a raw message above the inline limit (format=raw, its attachment, a draft sent
// later) and an uploaded bundle (its download page and bytes). Each replica has its own data
// directory, so the database is the only thing they share.

const TOKEN = 'e2e-shared-files';
const PKG = 'com.example.sharedfiles';
const MIB = 1024 * 1024;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function mailClient(base: string): gmail_v1.Gmail {
  const oauth = new gmailAuth.OAuth2();
  oauth.setCredentials({ access_token: TOKEN });
  return gmail({ version: 'v1', rootUrl: `${base}/`, auth: oauth, retry: false } as never);
}

/** message is a multipart message with a binary attachment of `size` bytes, well over the 64 KiB kept inline. */
function message(subject: string, attachment: Buffer): Buffer {
  const base64 = attachment.toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(
    [
      'From: admin@fogbank.local',
      'To: bob@example.com',
      `Subject: ${subject}`,
      `Message-ID: <${subject.replace(/\W+/g, '-')}@example.com>`,
      'Date: Tue, 3 Jun 2025 09:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=UTF-8',
      '',
      'The attachment is on the other replica.',
      '--b1',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="data.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      base64,
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

function attachmentBytes(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 131 + seed + (i >> 9)) & 0xff;
  return bytes;
}

describe('store files across replicas on one PostgreSQL', () => {
  let a: FogbankProcess;
  let b: FogbankProcess;
  let work: string;
  let replicas: ReplicaPair | undefined;

  before(async () => {
    replicas = await startReplicaPair('shared_files', TOKEN);
    ({ a, b, work } = replicas);
  });
  after(() => replicas?.stop());

  /** readOnB checks, through B, bob's copy of a message sent through A: raw bytes and attachment. */
  async function readOnB(sentBody: Buffer, attachment: Buffer, subject: string): Promise<void> {
    const onB = mailClient(b.url);
    const list = (await onB.users.messages.list({ userId: 'bob@example.com', q: `subject:"${subject}"` })).data;
    assert.equal(list.messages?.length, 1, JSON.stringify(list));
    const id = list.messages[0]!.id!;
    const raw = (await onB.users.messages.get({ userId: 'bob@example.com', id, format: 'raw' })).data;
    assert.equal(sha256(Buffer.from(raw.raw!, 'base64url')), sha256(sentBody));
    const full = (await onB.users.messages.get({ userId: 'bob@example.com', id, format: 'full' })).data;
    const part = full.payload!.parts!.find((p) => p.filename === 'data.bin')!;
    assert.equal(part.body!.size, attachment.length);
    const fetched = (await onB.users.messages.attachments.get({ userId: 'bob@example.com', messageId: id, id: part.body!.attachmentId! })).data;
    assert.equal(sha256(Buffer.from(fetched.data!, 'base64url')), sha256(attachment));
  }

  it('mail: a large message sent through A (JSON raw, then media upload) is read raw and its attachment fetched through B', async () => {
    const onA = mailClient(a.url);
    const attachment = attachmentBytes(200 * 1024, 1);
    const body = message('Across replicas raw', attachment);
    assert.ok(body.length > 64 * 1024);
    await onA.users.messages.send({ userId: 'me', requestBody: { raw: body.toString('base64url') } });
    await readOnB(body, attachment, 'Across replicas raw');

    // An upload keeps its bytes as they came (no header changes): the store adopts the spooled file.
    const uploaded = message('Across replicas upload', attachmentBytes(300 * 1024, 2));
    await onA.users.messages.send({ userId: 'me', media: { mimeType: 'message/rfc822', body: Readable.from([uploaded]) } }, { rootUrl: `${a.url}/` } as never);
    await readOnB(uploaded, attachmentBytes(300 * 1024, 2), 'Across replicas upload');
  });

  it('mail: a large draft made through A is sent through B, and its copy read through A', async () => {
    const attachment = attachmentBytes(150 * 1024, 3);
    const body = message('Draft across replicas', attachment);
    const draft = (await mailClient(a.url).users.drafts.create({ userId: 'me', requestBody: { message: { raw: body.toString('base64url') } } })).data;
    await mailClient(b.url).users.drafts.send({ userId: 'me', requestBody: { id: draft.id! } });
    const onA = mailClient(a.url);
    const list = (await onA.users.messages.list({ userId: 'bob@example.com', q: 'subject:"Draft across replicas"' })).data;
    const raw = (await onA.users.messages.get({ userId: 'bob@example.com', id: list.messages![0]!.id!, format: 'raw' })).data;
    assert.equal(sha256(Buffer.from(raw.raw!, 'base64url')), sha256(body));
    await assert.rejects(onA.users.drafts.get({ userId: 'me', id: draft.id! }), { status: 404 });
  });

  it('publisher: a bundle uploaded through A downloads byte for byte through B', async () => {
    const file = join(work, 'shared.aab');
    const payload = 3 * MIB + 4567;
    await writeZip(file, [
      ...bundleItems({ packageName: PKG, versionCode: 9 }),
      { name: 'base/assets/payload.bin', stream: () => zeros(payload), size: payload },
    ]);
    const bundle = readFileSync(file);
    const oauth = new publisherAuth.OAuth2();
    oauth.setCredentials({ access_token: TOKEN, expiry_date: Date.UTC(2100, 0, 1) });
    const client: androidpublisher_v3.Androidpublisher = androidpublisher({ version: 'v3', rootUrl: `${a.url}/`, auth: oauth });
    const artifact = (
      await client.internalappsharingartifacts.uploadbundle(
        { packageName: PKG, media: { mimeType: 'application/octet-stream', body: createReadStream(file) } },
        { rootUrl: `${a.url}/` } as never,
      )
    ).data as androidpublisher_v3.Schema$InternalAppSharingArtifact;
    assert.equal(artifact.sha256, sha256(bundle));
    const page = new URL(artifact.downloadUrl!);
    assert.equal(page.origin, a.url);
    const onB = `${b.url}${page.pathname}`;
    const html = await fetch(onB);
    assert.equal(html.status, 200);
    assert.match(await html.text(), new RegExp(PKG.replace(/\./g, '\\.')));
    const download = await fetch(`${onB}/download`);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-length'), String(bundle.length));
    const bytes = Buffer.from(await download.arrayBuffer());
    assert.equal(sha256(bytes), sha256(bundle));
    assert.ok(bytes.equals(bundle));
    // Unsigned, so both carry fogbank's own certificate: one identity for every replica of the store.
    const throughB = (
      await client.internalappsharingartifacts.uploadbundle(
        { packageName: PKG, media: { mimeType: 'application/octet-stream', body: createReadStream(file) } },
        { rootUrl: `${b.url}/` } as never,
      )
    ).data as androidpublisher_v3.Schema$InternalAppSharingArtifact;
    assert.equal(throughB.certificateFingerprint, artifact.certificateFingerprint);
  });
});
