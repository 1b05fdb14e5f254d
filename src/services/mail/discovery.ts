/**
 * The mail API as Discovery describes it (the Gmail API, v1): every method the mail family's
 * routes serve (routes.ts), with Google's ids, paths and parameters; the media methods carry the
 * same limits the upload routes enforce (MESSAGE_MEDIA). A test holds this list to the registered
 * routes and to the facts taken from Google's published document (test/fixtures/discovery/).
 */

import type { DiscoveryApi, DiscoveryMethod, DiscoveryParameter, DiscoverySchema } from '../../core/discovery.ts';
import { type DiscoveryParameters, discoveryMethod, type MethodSpec, PATH_PARAMETER, QUERY_STRING } from '../../core/discovery-method.ts';
import { REAL_SCOPE_BASE } from '../../core/identifiers.ts';
import { FULL_MAILBOX_SCOPE, MAIL_SCOPE_TERMS } from './identifiers.ts';
import { MESSAGE_MEDIA } from './routes.ts';

const scope = (name: string): string => `${REAL_SCOPE_BASE}/${name}`;
/** gmailScopes are the full mailbox scope and the named `…/auth/gmail.<name>` ones, in the order Google lists a method's scopes. */
const gmailScopes = (...names: string[]): string[] => [FULL_MAILBOX_SCOPE, ...names.map((name) => scope(`gmail.${name}`))];
const COMPOSE = gmailScopes('addons.current.action.compose', 'compose', 'modify');
const MODIFY = gmailScopes('modify');
const LIST_READ = gmailScopes('metadata', 'modify', 'readonly');
const MESSAGE_READ = gmailScopes(
  'addons.current.message.action',
  'addons.current.message.metadata',
  'addons.current.message.readonly',
  'metadata',
  'modify',
  'readonly',
);
const DRAFT_READ = gmailScopes('compose', 'modify', 'readonly');
const LABEL_READ = gmailScopes('labels', 'metadata', 'modify', 'readonly');
const LABEL_WRITE = gmailScopes('labels', 'modify');

const REPEATED_STRING: DiscoveryParameter = { type: 'string', location: 'query', repeated: true };
/** PAGE_PARAMETERS are the paging query parameters of every mail list method. */
const PAGE_PARAMETERS: DiscoveryParameters = { maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '100' }, pageToken: QUERY_STRING };
/** SEARCH_PARAMETERS are the query parameters of the messages, threads and drafts lists. */
const SEARCH_PARAMETERS: DiscoveryParameters = {
  includeSpamTrash: { type: 'boolean', location: 'query', default: 'false' },
  ...PAGE_PARAMETERS,
  q: QUERY_STRING,
};
const messageFormat = (values: readonly string[]): DiscoveryParameter => ({ type: 'string', location: 'query', enum: values, default: 'full' });
const MESSAGE_FORMAT = messageFormat(['minimal', 'full', 'raw', 'metadata']);

/** user is the method `gmail.users.<id>` at `gmail/v1/users/{userId}/<path>`, its userId defaulting to `me`. */
function user(id: string, httpMethod: DiscoveryMethod['httpMethod'], path: string, spec: MethodSpec): DiscoveryMethod {
  const userId: DiscoveryParameter = { ...PATH_PARAMETER, default: 'me' };
  return discoveryMethod(`gmail.users.${id}`, httpMethod, `gmail/v1/users/{userId}${path}`, { ...spec, parameters: { userId, ...spec.parameters } });
}

/** MAIL_METHODS are the methods the mail family serves. */
export const MAIL_METHODS: readonly DiscoveryMethod[] = [
  user('messages.send', 'POST', '/messages/send', {
    request: 'Message',
    response: 'Message',
    scopes: [...COMPOSE, scope('gmail.send')],
    mediaUpload: MESSAGE_MEDIA,
  }),
  user('messages.list', 'GET', '/messages', {
    parameters: { ...SEARCH_PARAMETERS, labelIds: REPEATED_STRING },
    response: 'ListMessagesResponse',
    scopes: LIST_READ,
  }),
  user('messages.get', 'GET', '/messages/{id}', {
    parameters: { format: MESSAGE_FORMAT, metadataHeaders: REPEATED_STRING },
    response: 'Message',
    scopes: MESSAGE_READ,
  }),
  user('messages.modify', 'POST', '/messages/{id}/modify', { request: 'ModifyMessageRequest', response: 'Message', scopes: MODIFY }),
  user('messages.trash', 'POST', '/messages/{id}/trash', { response: 'Message', scopes: MODIFY }),
  user('messages.untrash', 'POST', '/messages/{id}/untrash', { response: 'Message', scopes: MODIFY }),
  user('messages.delete', 'DELETE', '/messages/{id}', { scopes: gmailScopes() }),
  user('messages.attachments.get', 'GET', '/messages/{messageId}/attachments/{id}', {
    response: 'MessagePartBody',
    scopes: gmailScopes('addons.current.message.action', 'addons.current.message.readonly', 'modify', 'readonly'),
  }),
  user('drafts.create', 'POST', '/drafts', { request: 'Draft', response: 'Draft', scopes: COMPOSE, mediaUpload: MESSAGE_MEDIA }),
  user('drafts.update', 'PUT', '/drafts/{id}', { request: 'Draft', response: 'Draft', scopes: COMPOSE, mediaUpload: MESSAGE_MEDIA }),
  user('drafts.send', 'POST', '/drafts/send', { request: 'Draft', response: 'Message', scopes: COMPOSE, mediaUpload: MESSAGE_MEDIA }),
  user('drafts.list', 'GET', '/drafts', { parameters: SEARCH_PARAMETERS, response: 'ListDraftsResponse', scopes: DRAFT_READ }),
  user('drafts.get', 'GET', '/drafts/{id}', { parameters: { format: MESSAGE_FORMAT }, response: 'Draft', scopes: DRAFT_READ }),
  user('drafts.delete', 'DELETE', '/drafts/{id}', { scopes: COMPOSE }),
  user('threads.list', 'GET', '/threads', {
    parameters: { ...SEARCH_PARAMETERS, labelIds: REPEATED_STRING },
    response: 'ListThreadsResponse',
    scopes: LIST_READ,
  }),
  user('threads.get', 'GET', '/threads/{id}', {
    parameters: { format: messageFormat(['full', 'metadata', 'minimal']), metadataHeaders: REPEATED_STRING },
    response: 'Thread',
    scopes: MESSAGE_READ,
  }),
  user('labels.list', 'GET', '/labels', { response: 'ListLabelsResponse', scopes: LABEL_READ }),
  user('labels.get', 'GET', '/labels/{id}', { response: 'Label', scopes: LABEL_READ }),
  user('labels.create', 'POST', '/labels', { request: 'Label', response: 'Label', scopes: LABEL_WRITE }),
  user('labels.delete', 'DELETE', '/labels/{id}', { scopes: LABEL_WRITE }),
  user('getProfile', 'GET', '/profile', { response: 'Profile', scopes: gmailScopes('compose', 'metadata', 'modify', 'readonly') }),
  user('history.list', 'GET', '/history', {
    parameters: {
      historyTypes: { type: 'string', location: 'query', repeated: true, enum: ['messageAdded', 'messageDeleted', 'labelAdded', 'labelRemoved'] },
      labelId: QUERY_STRING,
      ...PAGE_PARAMETERS,
      startHistoryId: { type: 'string', location: 'query', format: 'uint64' },
    },
    response: 'ListHistoryResponse',
    scopes: LIST_READ,
  }),
];

const str = { type: 'string' } as const;
const bytes = { type: 'string', format: 'byte' } as const;
const uint64 = { type: 'string', format: 'uint64' } as const;
const int32 = { type: 'integer', format: 'int32' } as const;
const uint32 = { type: 'integer', format: 'uint32' } as const;
const listOf = (items: unknown) => ({ type: 'array', items }) as const;
const ref = (id: string) => ({ $ref: id }) as const;
const object = (id: string, properties: Record<string, unknown>): DiscoverySchema => ({ id, type: 'object', properties });

/** MAIL_SCHEMAS are the resources the mail methods take and answer, with the fields fogbank renders. */
const MAIL_SCHEMAS: Readonly<Record<string, DiscoverySchema>> = {
  Message: object('Message', {
    id: str,
    threadId: str,
    labelIds: listOf(str),
    snippet: str,
    historyId: uint64,
    internalDate: { type: 'string', format: 'int64' },
    payload: ref('MessagePart'),
    sizeEstimate: int32,
    raw: bytes,
  }),
  MessagePart: object('MessagePart', {
    partId: str,
    mimeType: str,
    filename: str,
    headers: listOf(ref('MessagePartHeader')),
    body: ref('MessagePartBody'),
    parts: listOf(ref('MessagePart')),
  }),
  MessagePartBody: object('MessagePartBody', { attachmentId: str, size: int32, data: bytes }),
  MessagePartHeader: object('MessagePartHeader', { name: str, value: str }),
  Draft: object('Draft', { id: str, message: ref('Message') }),
  ModifyMessageRequest: object('ModifyMessageRequest', { addLabelIds: listOf(str), removeLabelIds: listOf(str) }),
  ListMessagesResponse: object('ListMessagesResponse', { messages: listOf(ref('Message')), nextPageToken: str, resultSizeEstimate: uint32 }),
  ListDraftsResponse: object('ListDraftsResponse', { drafts: listOf(ref('Draft')), nextPageToken: str, resultSizeEstimate: uint32 }),
  ListThreadsResponse: object('ListThreadsResponse', { threads: listOf(ref('Thread')), nextPageToken: str, resultSizeEstimate: uint32 }),
  Thread: object('Thread', { id: str, snippet: str, historyId: uint64, messages: listOf(ref('Message')) }),
  Label: object('Label', {
    id: str,
    name: str,
    messageListVisibility: { type: 'string', enum: ['show', 'hide'] },
    labelListVisibility: { type: 'string', enum: ['labelShow', 'labelShowIfUnread', 'labelHide'] },
    type: { type: 'string', enum: ['system', 'user'] },
    messagesTotal: int32,
    messagesUnread: int32,
    threadsTotal: int32,
    threadsUnread: int32,
    color: ref('LabelColor'),
  }),
  LabelColor: object('LabelColor', { textColor: str, backgroundColor: str }),
  ListLabelsResponse: object('ListLabelsResponse', { labels: listOf(ref('Label')) }),
  Profile: object('Profile', { emailAddress: str, messagesTotal: int32, threadsTotal: int32, historyId: uint64 }),
  ListHistoryResponse: object('ListHistoryResponse', { history: listOf(ref('History')), nextPageToken: str, historyId: uint64 }),
  History: object('History', {
    id: uint64,
    messages: listOf(ref('Message')),
    messagesAdded: listOf(ref('HistoryMessageAdded')),
    messagesDeleted: listOf(ref('HistoryMessageDeleted')),
    labelsAdded: listOf(ref('HistoryLabelAdded')),
    labelsRemoved: listOf(ref('HistoryLabelRemoved')),
  }),
  HistoryMessageAdded: object('HistoryMessageAdded', { message: ref('Message') }),
  HistoryMessageDeleted: object('HistoryMessageDeleted', { message: ref('Message') }),
  HistoryLabelAdded: object('HistoryLabelAdded', { message: ref('Message'), labelIds: listOf(str) }),
  HistoryLabelRemoved: object('HistoryLabelRemoved', { message: ref('Message'), labelIds: listOf(str) }),
};

/** MAIL_DISCOVERY is the Gmail v1 API fogbank serves (the spec's `mail`). */
export const MAIL_DISCOVERY: DiscoveryApi = {
  name: 'gmail',
  version: 'v1',
  specName: 'mail',
  scopeTerms: MAIL_SCOPE_TERMS,
  title: 'Gmail API',
  description: 'The Gmail API lets you view and manage Gmail mailbox data like threads, messages, and labels.',
  documentationLink: 'https://developers.google.com/gmail/api/',
  servicePath: '',
  batchPath: 'batch',
  scopes: {
    [FULL_MAILBOX_SCOPE]: 'Read, compose, send, and permanently delete all your email from Gmail',
    [scope('gmail.addons.current.action.compose')]: 'Manage drafts and send emails when you interact with the add-on',
    [scope('gmail.addons.current.message.action')]: 'View your email messages when you interact with the add-on',
    [scope('gmail.addons.current.message.metadata')]: 'View your email message metadata when the add-on is running',
    [scope('gmail.addons.current.message.readonly')]: 'View your email messages when the add-on is running',
    [scope('gmail.compose')]: 'Manage drafts and send emails',
    [scope('gmail.insert')]: 'Add emails into your Gmail mailbox',
    [scope('gmail.labels')]: 'See and edit your email labels',
    [scope('gmail.metadata')]: 'View your email message metadata such as labels and headers, but not the email body',
    [scope('gmail.modify')]: 'Read, compose, and send emails from your Gmail account',
    [scope('gmail.readonly')]: 'View your email messages and settings',
    [scope('gmail.send')]: 'Send email on your behalf',
  },
  methods: MAIL_METHODS,
  schemas: MAIL_SCHEMAS,
};
