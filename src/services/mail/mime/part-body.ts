import { once } from 'node:events';
import type { Readable, Transform } from 'node:stream';
import { Splitter, type MimeNode } from '@zone-eu/mailsplit';

/**
 * readPartBodies streams a raw message through mailsplit again and returns the decoded bodies
 * of the parts named in `partIds` (numbered as parseMessage numbers them). Only those parts'
 * bytes are held.
 */
export async function readPartBodies(source: Readable, partIds: ReadonlySet<string>): Promise<Map<string, Buffer>> {
  const splitter = new Splitter({ ignoreEmbedded: true });
  const ids = new Map<MimeNode, { id: string; children: number }>();
  const found = new Map<string, Buffer>();
  const done: Promise<unknown>[] = [];
  let decoder: Transform | undefined;
  source.pipe(splitter);
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
      if (partIds.has(id) && node.multipart === false) {
        const collected: Buffer[] = [];
        decoder = node.getDecoder() as Transform;
        decoder.on('data', (data: Buffer) => collected.push(data));
        done.push(once(decoder, 'end').then(() => found.set(id, Buffer.concat(collected))));
      }
      continue;
    }
    if (chunk.type === 'body' && chunk.value !== undefined && decoder !== undefined) {
      if (!decoder.write(chunk.value)) await once(decoder, 'drain');
    }
  }
  decoder?.end();
  await Promise.all(done);
  return found;
}
