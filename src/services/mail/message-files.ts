import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, rm, stat, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileArea } from '../../core/uploads/index.ts';

/** RawSource is a raw RFC 822 message as it arrived: bytes decoded from JSON `raw`, or an uploaded file. */
export type RawSource = { readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'file'; readonly path: string };

/**
 * MessageFiles keeps raw messages as files under the mail file area (`raw/<name>.eml`). Copies
 * of one message in several mailboxes are hard links to one file, so delivering to many
 * recipients writes the bytes once and deleting one copy unlinks only that copy.
 */
export class MessageFiles {
  constructor(private readonly area: FileArea) {}

  /** path is where a stored message's bytes are. */
  path(name: string): string {
    return this.area.path('raw', name);
  }

  /** write stores `headers` followed by the source's body (from `bodyOffset`), streaming a file source; returns the new file's name and size. */
  async write(headers: Buffer, source: RawSource, bodyOffset: number): Promise<{ name: string; size: number }> {
    const name = `${randomUUID()}.eml`;
    const target = this.path(name);
    if (source.kind === 'bytes') {
      const body = source.bytes.subarray(bodyOffset);
      await writeFile(target, Buffer.concat([headers, body]), { flag: 'wx', mode: 0o600 });
      return { name, size: headers.length + body.length };
    }
    const out = createWriteStream(target, { flags: 'wx', mode: 0o600 });
    out.write(headers);
    try {
      await pipeline(createReadStream(source.path, { start: bodyOffset }), out);
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
    return { name, size: (await stat(target)).size };
  }

  /** adopt keeps an uploaded file as it is (a hard link, no copy): for messages whose headers need no change. */
  async adopt(path: string): Promise<{ name: string; size: number }> {
    const name = `${randomUUID()}.eml`;
    await link(path, this.path(name));
    return { name, size: (await stat(path)).size };
  }

  /** share gives another mailbox its own name for the same bytes. */
  async share(name: string): Promise<string> {
    const copy = `${randomUUID()}.eml`;
    await link(this.path(name), this.path(copy));
    return copy;
  }

  /** read streams a stored message. */
  read(name: string): Readable {
    return createReadStream(this.path(name));
  }

  /** remove drops one mailbox's copy. */
  async remove(name: string): Promise<void> {
    await rm(this.path(name), { force: true });
  }
}
