import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { Splitter, type MimeNode } from '@zone-eu/mailsplit';
import { badMultipart, unsupportedMediaType } from './errors.ts';
import { acceptsMediaType, parseContentType, type MediaLimits } from './media-type.ts';
import { writeNewFile } from '../../lib/new-file.ts';
import { feed, meteredHash, type SpooledFile } from './spool.ts';
import { METADATA_LIMIT, parseMetadata } from './upload-metadata.ts';

/** MultipartUpload is what a `multipart/related` upload carried: the JSON metadata and the media, spooled to a file. */
export interface MultipartUpload {
  readonly metadata: Record<string, unknown>;
  readonly mediaType: string;
  readonly media: SpooledFile;
}

/**
 * readMultipartRelated splits an `uploadType=multipart` body (`multipart/related`: a JSON part,
 * then the media part) with mailsplit, so quoted boundaries, bare-LF line ends and transfer
 * encodings are read the way MIME defines them. The media part streams to `mediaPath` through
 * its transfer decoder while it is hashed and measured; only the JSON part is held in memory.
 * The caller owns `mediaPath`: it removes the file whatever the outcome (the upload engine does).
 */
export async function readMultipartRelated(source: Readable, contentTypeHeader: string, mediaPath: string, limits: MediaLimits): Promise<MultipartUpload> {
  const contentType = parseContentType(contentTypeHeader);
  if (contentType.mediaType !== 'multipart/related') {
    throw badMultipart(`Invalid multipart request: the Content-Type must be multipart/related, not '${contentType.mediaType}'.`);
  }
  const boundary = contentType.params['boundary'];
  if (boundary === undefined || boundary === '') throw badMultipart('Invalid multipart request: the Content-Type has no boundary parameter.');
  // ignoreEmbedded keeps a message/rfc822 media part opaque: its bytes are the media, not more parts.
  const splitter = new Splitter({ ignoreEmbedded: true });
  splitter.write(Buffer.from(`Content-Type: multipart/related; boundary="${boundary.replace(/["\\]/g, '\\$&')}"\r\n\r\n`));
  const closing = watchForDelimiter(source, `--${boundary}--`);
  feed(source, splitter);

  let parts = 0;
  let metadataText = '';
  let metadataBytes = 0;
  let mediaType = '';
  let decoder: Writable | undefined;
  let spooling: Promise<SpooledFile> | undefined;
  let spoolError: unknown;
  try {
    for await (const chunk of splitter as AsyncIterable<{ type: string; value?: Buffer } & Partial<MimeNode>>) {
      if (chunk.type === 'node') {
        const node = chunk as MimeNode;
        if (node.root) continue;
        if (node.parentNode === false || !node.parentNode.root) continue;
        parts++;
        if (decoder !== undefined) {
          decoder.end();
          decoder = undefined;
        }
        if (parts === 2) {
          mediaType = node.contentType === false ? '' : node.contentType.toLowerCase();
          if (!acceptsMediaType(limits, mediaType)) throw unsupportedMediaType(mediaType || 'application/octet-stream', limits.accept);
          const transfer = node.getDecoder();
          decoder = transfer;
          spooling = spoolDecoded(transfer, mediaPath, limits.maxSize);
          // A rejected media part must stop the loop too, not only its own pipeline.
          spooling.catch((error: unknown) => (spoolError = error));
        }
        continue;
      }
      if (chunk.type !== 'body' || chunk.value === undefined) continue;
      if (parts === 1) {
        metadataBytes += chunk.value.length;
        if (metadataBytes > METADATA_LIMIT) throw badMultipart(`Invalid multipart request: the metadata part is larger than ${METADATA_LIMIT} bytes.`);
        metadataText += chunk.value.toString('utf8');
      } else if (parts === 2 && decoder !== undefined) {
        if (spoolError !== undefined) throw spoolError;
        if (!decoder.write(chunk.value)) await Promise.race([once(decoder, 'drain'), spooling]);
      }
    }
    if (parts !== 2) throw badMultipart(`Invalid multipart request with ${parts} mime parts.`);
    // A body that stops inside the media part (no close delimiter) is cut short, not complete.
    if (!closing.seen()) throw badMultipart('Invalid multipart request: Unexpected end of multipart data.');
    decoder?.end();
    const media = await spooling!;
    return { metadata: parseMetadata(metadataText), mediaType, media };
  } catch (error) {
    decoder?.destroy();
    source.unpipe(splitter);
    splitter.destroy();
    // Settled before the error goes up, so the caller, which owns `mediaPath`, removes a finished file.
    await spooling?.catch(() => undefined);
    throw error;
  }
}

/**
 * watchForDelimiter notes whether `delimiter` (the close delimiter `--boundary--`) passes by in
 * `source`'s bytes, keeping only a delimiter's length of the previous chunk to catch one that is
 * split across chunks.
 */
function watchForDelimiter(source: Readable, delimiter: string): { seen(): boolean } {
  const needle = Buffer.from(delimiter);
  let tail = Buffer.alloc(0);
  let seen = false;
  const onData = (chunk: Buffer): void => {
    const window = Buffer.concat([tail, chunk]);
    if (window.includes(needle)) {
      seen = true;
      source.off('data', onData);
      return;
    }
    tail = window.subarray(Math.max(0, window.length - needle.length + 1));
  };
  source.on('data', onData);
  return { seen: () => seen };
}

async function spoolDecoded(decoded: Readable, path: string, maxSize: number): Promise<SpooledFile> {
  const meter = meteredHash(maxSize);
  await writeNewFile(decoded, path, meter.stream);
  return { path, ...meter.result() };
}
