import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { writeNewFile } from '../../core/new-file.ts';
import type { FileArea } from '../../core/uploads/index.ts';
import type { ReadView } from '../../store/store.ts';
import { KINDS, type FileRefs } from './model.ts';

/** RawSource is a raw RFC 822 message as it arrived: bytes decoded from JSON `raw`, or an uploaded file. */
export type RawSource = { readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'file'; readonly path: string };

/** StoredRaw is a message's raw bytes once kept: a name, its size, and the bytes themselves when they are kept inline. */
export interface StoredRaw {
  readonly name: string;
  readonly size: number;
  readonly inline?: Buffer;
}

/**
 * INLINE_RAW_LIMIT is the largest message kept inside the store rather than as a file. Creating
 * a file costs about a millisecond on an ordinary ext4 volume (measured on the project machine),
 * more than the rest of a send; small messages arrive whole in a JSON body anyway, so they go
 * into the same transaction as their records. Anything larger — every upload — is a file.
 */
export const INLINE_RAW_LIMIT = 64 * 1024;

const INLINE_PREFIX = 'inline-';

/**
 * MessageFiles keeps raw messages: small ones inline in the store (kind `mail.files`, with their
 * share count), larger ones as files under the mail file area (`raw/<name>.eml`), streamed in and
 * out. The copies of one send in several mailboxes share one raw (see mailbox-writes.ts
 * shareFile), so delivering to many recipients stores the bytes once.
 */
export class MessageFiles {
  constructor(
    private readonly area: FileArea,
    private readonly store: ReadView,
  ) {}

  /**
   * sweep removes raw files no stored message refers to: left behind when fogbank stopped
   * between writing a message's file and committing its records.
   */
  async sweep(): Promise<void> {
    const folder = dirname(this.#path('probe'));
    for (const name of await readdir(folder)) {
      if ((await this.store.get<FileRefs>(KINDS.files, name)) === undefined) await rm(join(folder, name), { force: true });
    }
  }

  /** write keeps `headers` followed by the source's body (from `bodyOffset`), streaming a file source. */
  async write(headers: Buffer, source: RawSource, bodyOffset: number): Promise<StoredRaw> {
    if (source.kind === 'bytes') {
      const bytes = Buffer.concat([headers, source.bytes.subarray(bodyOffset)]);
      if (bytes.length <= INLINE_RAW_LIMIT) return { name: `${INLINE_PREFIX}${randomUUID()}`, size: bytes.length, inline: bytes };
      return this.#writeFile(Readable.from([bytes]));
    }
    return this.#writeFile(Readable.from(concatStreams(headers, source.path, bodyOffset)));
  }

  /** adopt keeps an uploaded file as it is (a hard link, no copy): for messages whose headers need no change. */
  async adopt(path: string): Promise<StoredRaw> {
    const name = `${randomUUID()}.eml`;
    await link(path, this.#path(name));
    return { name, size: (await stat(path)).size };
  }

  /** source is a kept message as a RawSource (its bytes when inline, else its file). */
  async source(name: string): Promise<RawSource> {
    if (!name.startsWith(INLINE_PREFIX)) return { kind: 'file', path: this.#path(name) };
    const record = await this.store.get<FileRefs>(KINDS.files, name);
    if (record?.value.data === undefined) throw new Error(`the inline message ${name} is missing from the store`);
    return { kind: 'bytes', bytes: Buffer.from(record.value.data, 'base64') };
  }

  /** read streams a kept message. */
  async read(name: string): Promise<Readable> {
    const source = await this.source(name);
    return source.kind === 'bytes' ? Readable.from([source.bytes]) : createReadStream(source.path);
  }

  /** bytes reads a kept message whole (for `format=raw`, whose JSON answer holds it anyway). */
  async bytes(name: string): Promise<Buffer> {
    const source = await this.source(name);
    return source.kind === 'bytes' ? source.bytes : readFile(source.path);
  }

  /** remove drops a raw no message uses any more (an inline one went with its store record). */
  async remove(name: string): Promise<void> {
    if (!name.startsWith(INLINE_PREFIX)) await rm(this.#path(name), { force: true });
  }

  async #writeFile(body: Readable): Promise<StoredRaw> {
    const name = `${randomUUID()}.eml`;
    const target = this.#path(name);
    await writeNewFile(body, target);
    return { name, size: (await stat(target)).size };
  }

  #path(name: string): string {
    return this.area.path('raw', name);
  }
}

async function* concatStreams(head: Buffer, path: string, start: number): AsyncGenerator<Buffer> {
  yield head;
  for await (const chunk of createReadStream(path, { start }) as AsyncIterable<Buffer>) yield chunk;
}
