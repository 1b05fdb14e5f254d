import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Store } from '../../store/store.ts';
import { findBodyOffset } from './mime/header-block.ts';
import { parseMessage, parseMessageBytes } from './mime/parse-message.ts';
import { KINDS, type FileRefs } from './model.ts';

/**
 * RawSource is a raw RFC 822 message: bytes decoded from JSON `raw`, an uploaded local file, or
 * a message already kept (a draft being sent), by its name.
 */
export type RawSource =
  | { readonly kind: 'bytes'; readonly bytes: Buffer }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'kept'; readonly name: string };

/** StoredRaw is a message's raw bytes once kept: a name, its size, and the bytes themselves when they are kept inline. */
export interface StoredRaw {
  readonly name: string;
  readonly size: number;
  readonly inline?: Buffer;
}

/**
 * INLINE_RAW_LIMIT is the largest message kept inside the store's records rather than as a
 * store file. Creating a file costs about a millisecond on an ordinary ext4 volume (measured on
 * the project machine), more than the rest of a send; small messages arrive whole in a JSON body
 * anyway, so they go into the same transaction as their records. Anything larger — every
 * upload — is a file.
 */
export const INLINE_RAW_LIMIT = 64 * 1024;

const INLINE_PREFIX = 'inline-';

// How many characters of inline raws' search texts stay parsed (about 8 MiB).
const SEARCH_TEXT_CHARS = 4 * 1024 * 1024;

/** FOLDER is where mail keeps its raw files in `store.files`. */
const FOLDER = 'mail/raw/';

/**
 * MessageFiles keeps raw messages: small ones inline in the store (kind `mail.files`, with their
 * share count), larger ones as store files (`mail/raw/<name>.eml`, reachable from every replica
 * sharing the store), streamed in and out. The copies of one send in several mailboxes share one
 * raw (see mailbox-writes.ts newFile), so delivering to many recipients stores the bytes once.
 * A file is written before the records naming it commit; a write that fails removes it, and
 * `sweep` removes those a crash left behind.
 */
export class MessageFiles {
  /** Search texts read from inline raws (a raw's bytes never change under its name), at most SEARCH_TEXT_CHARS in all. */
  #texts = new Map<string, string>();
  #textChars = 0;

  constructor(private readonly store: Store) {}

  /**
   * searchText is a raw's first text part, lower-cased, for free-text search: stored with a file's
   * count, read from an inline raw's bytes (parsed once, then remembered), '' when it is gone.
   */
  async searchText(name: string): Promise<string> {
    const known = this.#texts.get(name);
    if (known !== undefined) return known;
    const record = await this.store.get<FileRefs>(KINDS.files, name);
    if (record?.value.text !== undefined) return record.value.text;
    if (record?.value.data === undefined) return '';
    const raw = Buffer.from(record.value.data, 'base64');
    const bodyOffset = findBodyOffset(raw);
    const parsed =
      bodyOffset === -1 ? await parseMessage(Readable.from([raw])) : await parseMessageBytes(raw.subarray(0, bodyOffset), raw.subarray(bodyOffset));
    const text = parsed.text.toLowerCase();
    // Past the budget the cache starts over: a search over more text than that parses again.
    if (this.#textChars + text.length > SEARCH_TEXT_CHARS) {
      this.#texts = new Map();
      this.#textChars = 0;
    }
    this.#texts.set(name, text);
    this.#textChars += text.length;
    return text;
  }

  /** sweep removes raw files no stored message refers to: left behind when fogbank stopped between writing a message's file and committing its records. */
  async sweep(): Promise<void> {
    await this.store.files.sweep(FOLDER, async (ids) => {
      const live = new Set<string>();
      for (const id of ids) if ((await this.store.get<FileRefs>(KINDS.files, id.slice(FOLDER.length))) !== undefined) live.add(id);
      return live;
    });
  }

  /** write keeps `headers` followed by the source's body (from `bodyOffset`), streaming a file source. */
  async write(headers: Buffer, source: RawSource, bodyOffset: number): Promise<StoredRaw> {
    if (source.kind === 'bytes') {
      const bytes = Buffer.concat([headers, source.bytes.subarray(bodyOffset)]);
      if (bytes.length <= INLINE_RAW_LIMIT) return { name: inlineName(), size: bytes.length, inline: bytes };
      return this.#writeFile(Readable.from([bytes]));
    }
    return this.#writeFile(concat(headers, this.stream(source, bodyOffset)));
  }

  /** adopt keeps a message whose headers need no change as it is: an upload is hard-linked where the store can, a kept one copied inside the store. */
  async adopt(source: Exclude<RawSource, { kind: 'bytes' }>): Promise<StoredRaw> {
    const name = `${randomUUID()}.eml`;
    const size =
      source.kind === 'file'
        ? await this.store.files.adopt(FOLDER + name, source.path, 'link')
        : await this.store.files.copy(FOLDER + source.name, FOLDER + name);
    return { name, size };
  }

  /** source is a kept message as a RawSource (its bytes when inline). */
  async source(name: string): Promise<RawSource> {
    if (!name.startsWith(INLINE_PREFIX)) return { kind: 'kept', name };
    const record = await this.store.get<FileRefs>(KINDS.files, name);
    if (record?.value.data === undefined) throw new Error(`the inline message ${name} is missing from the store`);
    return { kind: 'bytes', bytes: Buffer.from(record.value.data, 'base64') };
  }

  /** stream streams a source from byte `start`. */
  stream(source: RawSource, start = 0): Readable {
    if (source.kind === 'bytes') return Readable.from([source.bytes.subarray(start)]);
    return source.kind === 'file' ? createReadStream(source.path, { start }) : this.store.files.read(FOLDER + source.name, start);
  }

  /** read streams a kept message. */
  async read(name: string): Promise<Readable> {
    return this.stream(await this.source(name));
  }

  /** bytes reads a kept message whole (for `format=raw`, whose JSON answer holds it anyway). */
  async bytes(name: string): Promise<Buffer> {
    const source = await this.source(name);
    return source.kind === 'bytes' ? source.bytes : buffer(this.stream(source));
  }

  /** remove drops a raw no message uses any more (an inline one went with its store record). */
  async remove(name: string): Promise<void> {
    if (!name.startsWith(INLINE_PREFIX)) await this.store.files.remove(FOLDER + name);
  }

  async #writeFile(body: AsyncIterable<Uint8Array>): Promise<StoredRaw> {
    const name = `${randomUUID()}.eml`;
    return { name, size: await this.store.files.write(FOLDER + name, body) };
  }
}

const opened = new WeakMap<Store, Promise<MessageFiles>>();

/**
 * openMessageFiles is the one MessageFiles of a store in this process, swept once before its first
 * use: the family's app and its SMTP listener write through it, so neither's sweep can remove a
 * file the other is about to commit.
 */
export function openMessageFiles(store: Store): Promise<MessageFiles> {
  let files = opened.get(store);
  if (files === undefined) {
    const made = new MessageFiles(store);
    files = made.sweep().then(() => made);
    // A failed sweep is the caller's error now and is tried again by the next one.
    files.catch(() => opened.delete(store));
    opened.set(store, files);
  }
  return files;
}

/**
 * inlineName names a new inline raw: the time first, so each send's `mail.files` record goes in
 * beside the last one in the store's key order (a commit of many sends writes one index page for
 * them, not one page per send at a random place), then a UUID, which alone makes it unique.
 */
function inlineName(): string {
  return `${INLINE_PREFIX}${Date.now().toString(16).padStart(12, '0')}-${randomUUID()}`;
}

async function* concat(head: Buffer, rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield head;
  yield* rest;
}
