/**
 * The mail API as Discovery describes it (the Gmail API, v1): every method the mail family's
 * routes serve (routes.ts), with Google's ids, paths and parameters; the media methods carry the
 * same limits the upload routes enforce (MESSAGE_MEDIA). A test holds this list to the registered
 * routes and to the facts taken from Google's published document (test/fixtures/discovery/).
 */

import type { DiscoveryApi, DiscoveryMethod, DiscoverySchema } from '../../core/discovery.ts';
import { REAL_SCOPE_BASE } from '../../core/identifiers.ts';
import { FULL_MAILBOX_SCOPE, MAIL_SCOPE_TERMS } from './identifiers.ts';
import { MESSAGE_MEDIA } from './routes.ts';

/** MAIL_METHODS are the methods the mail family serves. */
export const MAIL_METHODS: readonly DiscoveryMethod[] = [
  {
    id: 'gmail.users.messages.send',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/messages/send',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    request: 'Message',
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.action.compose', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.send'],
    mediaUpload: MESSAGE_MEDIA,
  },
  {
    id: 'gmail.users.messages.list',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/messages',
    parameters: {
      includeSpamTrash: { type: 'boolean', location: 'query', default: 'false' },
      labelIds: { type: 'string', location: 'query', repeated: true },
      maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '100' },
      pageToken: { type: 'string', location: 'query' },
      q: { type: 'string', location: 'query' },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'ListMessagesResponse',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.messages.get',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/messages/{id}',
    parameters: {
      format: { type: 'string', location: 'query', enum: ['minimal', 'full', 'raw', 'metadata'], default: 'full' },
      id: { type: 'string', location: 'path', required: true },
      metadataHeaders: { type: 'string', location: 'query', repeated: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.message.action', 'https://www.googleapis.com/auth/gmail.addons.current.message.metadata', 'https://www.googleapis.com/auth/gmail.addons.current.message.readonly', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.messages.modify',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/messages/{id}/modify',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    request: 'ModifyMessageRequest',
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.messages.trash',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/messages/{id}/trash',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.messages.untrash',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/messages/{id}/untrash',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.messages.delete',
    httpMethod: 'DELETE',
    path: 'gmail/v1/users/{userId}/messages/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    scopes: ['https://mail.google.com/'],
  },
  {
    id: 'gmail.users.messages.attachments.get',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/messages/{messageId}/attachments/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      messageId: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'messageId', 'id'],
    response: 'MessagePartBody',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.message.action', 'https://www.googleapis.com/auth/gmail.addons.current.message.readonly', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.drafts.create',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/drafts',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    request: 'Draft',
    response: 'Draft',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.action.compose', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify'],
    mediaUpload: MESSAGE_MEDIA,
  },
  {
    id: 'gmail.users.drafts.update',
    httpMethod: 'PUT',
    path: 'gmail/v1/users/{userId}/drafts/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    request: 'Draft',
    response: 'Draft',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.action.compose', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify'],
    mediaUpload: MESSAGE_MEDIA,
  },
  {
    id: 'gmail.users.drafts.send',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/drafts/send',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    request: 'Draft',
    response: 'Message',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.action.compose', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify'],
    mediaUpload: MESSAGE_MEDIA,
  },
  {
    id: 'gmail.users.drafts.list',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/drafts',
    parameters: {
      includeSpamTrash: { type: 'boolean', location: 'query', default: 'false' },
      maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '100' },
      pageToken: { type: 'string', location: 'query' },
      q: { type: 'string', location: 'query' },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'ListDraftsResponse',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.drafts.get',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/drafts/{id}',
    parameters: {
      format: { type: 'string', location: 'query', enum: ['minimal', 'full', 'raw', 'metadata'], default: 'full' },
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Draft',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.drafts.delete',
    httpMethod: 'DELETE',
    path: 'gmail/v1/users/{userId}/drafts/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.action.compose', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.threads.list',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/threads',
    parameters: {
      includeSpamTrash: { type: 'boolean', location: 'query', default: 'false' },
      labelIds: { type: 'string', location: 'query', repeated: true },
      maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '100' },
      pageToken: { type: 'string', location: 'query' },
      q: { type: 'string', location: 'query' },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'ListThreadsResponse',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.threads.get',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/threads/{id}',
    parameters: {
      format: { type: 'string', location: 'query', enum: ['full', 'metadata', 'minimal'], default: 'full' },
      id: { type: 'string', location: 'path', required: true },
      metadataHeaders: { type: 'string', location: 'query', repeated: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Thread',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.addons.current.message.action', 'https://www.googleapis.com/auth/gmail.addons.current.message.metadata', 'https://www.googleapis.com/auth/gmail.addons.current.message.readonly', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.labels.list',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/labels',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'ListLabelsResponse',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.labels', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.labels.get',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/labels/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    response: 'Label',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.labels', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.labels.create',
    httpMethod: 'POST',
    path: 'gmail/v1/users/{userId}/labels',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    request: 'Label',
    response: 'Label',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.labels', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.labels.delete',
    httpMethod: 'DELETE',
    path: 'gmail/v1/users/{userId}/labels/{id}',
    parameters: {
      id: { type: 'string', location: 'path', required: true },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId', 'id'],
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.labels', 'https://www.googleapis.com/auth/gmail.modify'],
  },
  {
    id: 'gmail.users.getProfile',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/profile',
    parameters: {
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'Profile',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
  {
    id: 'gmail.users.history.list',
    httpMethod: 'GET',
    path: 'gmail/v1/users/{userId}/history',
    parameters: {
      historyTypes: { type: 'string', location: 'query', repeated: true, enum: ['messageAdded', 'messageDeleted', 'labelAdded', 'labelRemoved'] },
      labelId: { type: 'string', location: 'query' },
      maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '100' },
      pageToken: { type: 'string', location: 'query' },
      startHistoryId: { type: 'string', location: 'query', format: 'uint64' },
      userId: { type: 'string', location: 'path', required: true, default: 'me' },
    },
    parameterOrder: ['userId'],
    response: 'ListHistoryResponse',
    scopes: ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.metadata', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'],
  },
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
  Message: object('Message', { id: str, threadId: str, labelIds: listOf(str), snippet: str, historyId: uint64, internalDate: { type: 'string', format: 'int64' }, payload: ref('MessagePart'), sizeEstimate: int32, raw: bytes }),
  MessagePart: object('MessagePart', { partId: str, mimeType: str, filename: str, headers: listOf(ref('MessagePartHeader')), body: ref('MessagePartBody'), parts: listOf(ref('MessagePart')) }),
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

const scope = (name: string): string => `${REAL_SCOPE_BASE}/${name}`;

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
