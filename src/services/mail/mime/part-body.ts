import { once } from 'node:events';
import type { Readable, Transform } from 'node:stream';
import { Splitter, type MimeNode } from '@zone-eu/mailsplit';

/**
 * readPartBody streams a raw message through mailsplit again and returns the decoded body of
 * the part `partId` (numbered as parseMessage numbers them), or undefined when there is none.
 * Only that part's bytes are held.
 */
export async function readPartBody(source: Readable, partId: string): Promise<Buffer | undefined> {
  const splitter = new Splitter({ ignoreEmbedded: true });
  const ids = new Map<MimeNode, { id: string; children: number }>();
  let decoder: Transform | undefined;
  let collected: Buffer[] | undefined;
  let done: Promise<unknown> | undefined;
  source.pipe(splitter as unknown as Transform);
  for await (const chunk of splitter as AsyncIterable<{ type: string; value?: Buffer } & Partial<MimeNode>>) {
    if (chunk.type === 'node') {
      const node = chunk as MimeNode;
      if (decoder !== undefined) {
        decoder.end();
        decoder = undefined;
      }
      const parent = node.parentNode === false ? undefined : ids.get(node.parentNode);
      const id = parent === undefined ? '' : parent.id === '' ? String(parent.children++) : `${parent.id}.${parent.children++}`;
      ids.set(node, { id, children: 0 });
      if (id === partId && node.multipart === false) {
        collected = [];
        const target = collected;
        decoder = node.getDecoder() as Transform;
        decoder.on('data', (data: Buffer) => target.push(data));
        done = once(decoder, 'end');
      }
      continue;
    }
    if (chunk.type === 'body' && chunk.value !== undefined && decoder !== undefined) {
      if (!decoder.write(chunk.value)) await once(decoder, 'drain');
    }
  }
  decoder?.end();
  await done;
  return collected === undefined ? undefined : Buffer.concat(collected);
}
