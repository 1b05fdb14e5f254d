/**
 * The mail view: mailboxes with unread counts, a searchable page of messages (Gmail's `q`
 * syntax, as the API takes it), and one message — its HTML in a sandboxed frame that runs no
 * script and loads nothing remote until asked, its text, headers, thread, source and attachments.
 * Everything a sender wrote is rendered as text by Preact, never as markup.
 */
import { useEffect, useState } from 'preact/hooks';
import { BASE, call, path, type Session } from '../api.ts';
import { href, type Route } from '../route.ts';
import { useLiveRefresh } from './use-live.ts';

interface MailboxSummary {
  readonly address: string;
  readonly total: number;
  readonly unread: number;
}

interface MessageSummary {
  readonly id: string;
  readonly threadId: string;
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly snippet: string;
  readonly date: number;
  readonly labelIds: readonly string[];
  readonly hasAttachment: boolean;
}

interface MessageDetail extends MessageSummary {
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly text: string | null;
  readonly htmlPart: string | null;
  readonly attachments: readonly { readonly partId: string; readonly filename: string; readonly mimeType: string; readonly size: number }[];
  readonly thread: readonly MessageSummary[];
}

interface MessagePage {
  readonly messages: readonly MessageSummary[];
  readonly total: number;
  readonly nextPageToken?: string;
}

const isMail = (event: { type: string; kind?: string }): boolean => event.type === 'change' && (event.kind ?? '').startsWith('mail.');

/** MailView is the whole mail area for one route (`mail/<mailbox>/<message id>`). */
export function MailView({ route, session }: { route: Route; session: Session }) {
  const [mailboxes, setMailboxes] = useState<readonly MailboxSummary[]>([]);
  const [problem, setProblem] = useState('');
  const loadMailboxes = (): void => {
    call<{ mailboxes: MailboxSummary[] }>('GET', '/mail/mailboxes').then(
      (answer) => setMailboxes(answer.mailboxes),
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(loadMailboxes, []);
  useLiveRefresh(isMail, loadMailboxes);
  // Refused (a token with no Gmail read scope): no mailbox to open.
  const mailbox = problem !== '' ? undefined : (route[1] ?? mailboxes[0]?.address ?? (session.admin ? undefined : session.principal.toLowerCase()));
  const messageId = route[2];
  return (
    <div class={messageId === undefined ? 'mail' : 'mail reading'}>
      <nav class="mailboxes" aria-label="Mailboxes">
        <h2>Mailboxes</h2>
        {problem !== '' && <p role="alert">{problem}</p>}
        {mailboxes.length === 0 && problem === '' && <p class="empty">No mail yet.</p>}
        <ul>
          {mailboxes.map((each) => (
            <li key={each.address}>
              <a href={href('mail', each.address)} aria-current={each.address === mailbox ? 'page' : undefined} data-mailbox={each.address}>
                <span class="address">{each.address}</span>
                {each.unread > 0 && (
                  <span class="badge">
                    {each.unread}
                    <span class="visually-hidden"> unread</span>
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {mailbox !== undefined && <MessageList mailbox={mailbox} selected={messageId} />}
      {mailbox !== undefined && messageId !== undefined && <MessageView mailbox={mailbox} id={messageId} />}
    </div>
  );
}

/** MessageList is one mailbox's messages, newest first, a page at a time, searchable. */
function MessageList({ mailbox, selected }: { mailbox: string; selected: string | undefined }) {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const [tokens, setTokens] = useState<readonly string[]>([]);
  const [page, setPage] = useState<MessagePage | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const token = tokens[tokens.length - 1];
  const load = (): void => {
    const params = new URLSearchParams({ maxResults: '50' });
    if (applied !== '') params.set('q', applied);
    if (token !== undefined) params.set('pageToken', token);
    call<MessagePage>('GET', `${path('mail', mailbox, 'messages')}?${params}`).then(
      (answer) => {
        setPage(answer);
        setProblem('');
      },
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(() => setTokens([]), [mailbox, applied]);
  useEffect(load, [mailbox, applied, token]);
  useLiveRefresh(isMail, load);
  return (
    <section class="messages" aria-label={`Messages of ${mailbox}`}>
      <form
        class="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(query.trim());
        }}
      >
        <label for="q" class="visually-hidden">
          Search messages
        </label>
        <input
          id="q"
          type="search"
          placeholder="Search: from: to: subject: has:attachment is:unread …"
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
      </form>
      {problem !== '' && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {page !== undefined && page.messages.length === 0 && <p class="empty">No messages{applied === '' ? '' : ' match'}.</p>}
      <ul class="message-list">
        {page?.messages.map((message) => (
          <li key={message.id} class={message.labelIds.includes('UNREAD') ? 'unread' : ''}>
            <a href={href('mail', mailbox, message.id)} aria-current={message.id === selected ? 'true' : undefined} data-message-id={message.id}>
              <span class="from">{message.from}</span>
              <time dateTime={new Date(message.date).toISOString()}>{formatDate(message.date)}</time>
              <span class="subject">
                {message.hasAttachment && (
                  <span class="clip" role="img" aria-label="has attachments">
                    📎
                  </span>
                )}
                {message.subject === '' ? '(no subject)' : message.subject}
              </span>
              <span class="to">to {message.to}</span>
              <span class="snippet">{message.snippet}</span>
              <Labels ids={message.labelIds} />
            </a>
          </li>
        ))}
      </ul>
      <div class="pager">
        <button type="button" disabled={tokens.length === 0} onClick={() => setTokens(tokens.slice(0, -1))}>
          Newer
        </button>
        <span>{page === undefined ? '' : `${page.total} message${page.total === 1 ? '' : 's'}`}</span>
        <button
          type="button"
          disabled={page?.nextPageToken === undefined}
          onClick={() => page?.nextPageToken !== undefined && setTokens([...tokens, page.nextPageToken])}
        >
          Older
        </button>
      </div>
    </section>
  );
}

/** Labels shows a message's labels as text. */
function Labels({ ids }: { ids: readonly string[] }) {
  return (
    <span class="labels">
      {ids.map((id) => (
        <span key={id} class="label">
          {id}
        </span>
      ))}
    </span>
  );
}

type Tab = 'html' | 'text' | 'headers' | 'thread';

/** MessageView is one message. */
function MessageView({ mailbox, id }: { mailbox: string; id: string }) {
  const [detail, setDetail] = useState<MessageDetail | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const [tab, setTab] = useState<Tab>('html');
  const [remote, setRemote] = useState(false);
  useEffect(() => {
    setDetail(undefined);
    setRemote(false);
    call<MessageDetail>('GET', path('mail', mailbox, 'messages', id)).then(
      (answer) => {
        setDetail(answer);
        setProblem('');
        setTab(answer.htmlPart !== null ? 'html' : 'text');
      },
      (error: Error) => setProblem(error.message),
    );
  }, [mailbox, id]);
  if (problem !== '')
    return (
      <article class="message">
        <p class="problem" role="alert">
          {problem}
        </p>
      </article>
    );
  if (detail === undefined) return <article class="message" aria-busy="true" />;
  const base = `${BASE}${path('mail', mailbox, 'messages', id)}`;
  const header = (name: string): string[] => detail.headers.filter((each) => each.name.toLowerCase() === name).map((each) => each.value);
  const tabs: [Tab, string][] = [
    ['html', 'HTML'],
    ['text', 'Text'],
    ['headers', 'Headers'],
    ['thread', `Thread (${detail.thread.length})`],
  ];
  return (
    <article class="message" aria-labelledby="message-subject">
      <a class="back" href={href('mail', mailbox)}>
        ← Back to {mailbox}
      </a>
      <h2 id="message-subject">{detail.subject === '' ? '(no subject)' : detail.subject}</h2>
      <dl class="envelope">
        <dt>From</dt>
        <dd>{detail.from}</dd>
        <dt>To</dt>
        <dd>{detail.to}</dd>
        {header('cc').length > 0 && <dt>Cc</dt>}
        {header('cc').length > 0 && <dd>{header('cc').join(', ')}</dd>}
        {header('bcc').length > 0 && <dt>Bcc</dt>}
        {header('bcc').length > 0 && <dd data-bcc="">{header('bcc').join(', ')}</dd>}
        <dt>Date</dt>
        <dd>{formatDate(detail.date)}</dd>
      </dl>
      <Labels ids={detail.labelIds} />
      <p class="downloads">
        <a href={`${base}/raw`} download={`${id}.eml`}>
          Download source (.eml)
        </a>
        {detail.attachments.map((each) => (
          <a
            key={each.partId}
            href={`${base}/attachments/${encodeURIComponent(each.partId)}`}
            download={each.filename === '' ? `part-${each.partId}` : each.filename}
            class="attachment"
          >
            📎 {each.filename === '' ? `part ${each.partId}` : each.filename} ({formatSize(each.size)})
          </a>
        ))}
      </p>
      <div role="tablist" aria-label="Message parts" class="tabs">
        {tabs.map(([name, label]) => (
          <button
            key={name}
            type="button"
            role="tab"
            id={`tab-${name}`}
            aria-selected={tab === name}
            aria-controls="message-panel"
            onClick={() => setTab(name)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="message-panel" aria-labelledby={`tab-${tab}`} class="panel">
        {tab === 'html' &&
          (detail.htmlPart === null ? (
            <p class="empty">This message has no HTML part.</p>
          ) : (
            <>
              {!remote && (
                <p class="note">
                  Remote images are blocked.{' '}
                  <button type="button" onClick={() => setRemote(true)}>
                    Load remote images
                  </button>
                </p>
              )}
              <iframe
                title="Message body (HTML, sandboxed)"
                class="html-body"
                sandbox=""
                referrerpolicy="no-referrer"
                src={`${base}/html${remote ? '?remote=1' : ''}`}
              />
            </>
          ))}
        {tab === 'text' && (detail.text === null ? <p class="empty">This message has no text part.</p> : <pre class="text-body">{detail.text}</pre>)}
        {tab === 'headers' && (
          <table class="headers">
            <caption class="visually-hidden">Message headers</caption>
            <tbody>
              {detail.headers.map((each, index) => (
                <tr key={index}>
                  <th scope="row">{each.name}</th>
                  <td>{each.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {tab === 'thread' && (
          <ol class="thread">
            {detail.thread.map((each) => (
              <li key={each.id}>
                <a href={href('mail', mailbox, each.id)} aria-current={each.id === id ? 'true' : undefined}>
                  <span class="from">{each.from}</span> — <span class="subject">{each.subject}</span> <time>{formatDate(each.date)}</time>
                </a>
              </li>
            ))}
          </ol>
        )}
      </div>
    </article>
  );
}

/** formatDate shows a time in the viewer's locale. */
function formatDate(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** formatSize shows a byte count. */
export function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
