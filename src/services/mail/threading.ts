import type { ReadView } from '../../store/store.ts';
import { key, KINDS, type MessageRecord } from './model.ts';
import { normalizeSubject } from './outgoing.ts';

/**
 * threadFor decides the thread of a new message in one mailbox, by Gmail's rule: it joins the
 * thread of a message it answers (In-Reply-To / References name that message's Message-ID) when
 * the subjects match. The sender's own copy of an API send also needs the request to name that
 * thread (`threadId`); a recipient's copy, and the sender's copy of an SMTP submission (which has
 * no way to name one), are threaded by the headers alone. Otherwise the message
 * starts a thread whose id is its own id.
 */
export async function threadFor(
  view: ReadView,
  mailbox: string,
  messageId: string,
  references: readonly string[],
  subject: string,
  requestedThreadId: string | undefined,
  explicit: boolean,
): Promise<string> {
  if (explicit && requestedThreadId === undefined) return messageId;
  const wanted = normalizeSubject(subject);
  for (const reference of references) {
    const indexed = await view.get<{ id: string; threadId: string }>(KINDS.messageIds, key(mailbox, reference));
    if (indexed === undefined) continue;
    if (explicit && indexed.value.threadId !== requestedThreadId) continue;
    const answered = await view.get<MessageRecord>(KINDS.messages, key(mailbox, indexed.value.id));
    if (answered !== undefined && normalizeSubject(answered.value.search.subject) === wanted) return answered.value.threadId;
  }
  return messageId;
}
