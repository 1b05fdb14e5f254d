import { MemoryStore } from '../src/store/memory-store.ts';
import { systemClock } from '../src/core/clock.ts';
import { cryptoIds } from '../src/core/ids.ts';
import { openFileArea } from '../src/core/uploads/index.ts';
import { MessageFiles } from '../src/services/mail/message-files.ts';
import { ComposeService } from '../src/services/mail/compose-service.ts';
import { composeOutgoing } from '../src/services/mail/outgoing.ts';
import { parseMessage } from '../src/services/mail/mime/parse-message.ts';
import { Readable } from 'node:stream';
const head = 'From: admin@fogbank.local\r\nTo: bob@example.com\r\nCc: carol@example.com\r\nSubject: bench\r\n\r\n';
const raw = Buffer.from(head + 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.\r\n'.repeat(170));
const area = openFileArea(undefined, 'mail');
const files = new MessageFiles(area);
const store = new MemoryStore();
const svc = new ComposeService(store, systemClock, cryptoIds, files, undefined);
for (const [label, fn] of [
  ['parse', () => parseMessage(Readable.from([raw]))],
  ['compose', () => composeOutgoing({ kind: 'bytes', bytes: raw }, 'admin@fogbank.local', 'send', files, systemClock, cryptoIds)],
  ['send', () => svc.send('admin@fogbank.local', { kind: 'bytes', bytes: raw }, undefined)],
] as const) {
  const n = 500; const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, ((performance.now() - t) / n).toFixed(3), 'ms/op');
}
area.close();
