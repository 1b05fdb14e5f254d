import type { FastifyInstance } from 'fastify';
import type { InjectOptions } from 'fastify';
import { HTTP_REASON_PHRASES } from '../../../core/errors.ts';
import { badRequest } from './errors.ts';
import type { IdSource } from '../../../core/ids.ts';
import { hexId } from '../../../core/ids.ts';

/** BATCH_PATH is where Google API clients send batched compute calls. */
export const BATCH_PATH = '/batch/compute/v1';

/** MAX_BATCH_PARTS is the real limit on calls per batch request. */
export const MAX_BATCH_PARTS = 1000;

interface BatchPart {
  readonly contentId: string | undefined;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * useComputeBatch serves the Google batch protocol (multipart/mixed of `application/http`
 * parts, answered part for part with `Content-ID: <response-…>`), which gcloud uses whenever one
 * command makes several calls (e.g. deleting two templates). Each part runs through the same
 * routes as a direct call.
 */
export function useComputeBatch(app: FastifyInstance, ids: IdSource): void {
  app.addContentTypeParser(/^multipart\/mixed/i, { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.post(BATCH_PATH, async (request, reply) => {
    const contentType = request.headers['content-type'] ?? '';
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!/^multipart\/mixed/i.test(contentType) || boundary === undefined) {
      throw badRequest('Batch requests must be multipart/mixed with a boundary.');
    }
    const parts = splitParts(String(request.body ?? ''), boundary).map(parsePart);
    if (parts.length > MAX_BATCH_PARTS) throw badRequest(`A batch request may contain at most ${MAX_BATCH_PARTS} calls.`);
    const responses: string[] = [];
    for (const part of parts) {
      const headers: Record<string, string> = { ...part.headers };
      if (headers['authorization'] === undefined && request.headers.authorization !== undefined) headers['authorization'] = request.headers.authorization;
      if (request.headers.host !== undefined) headers['host'] = request.headers.host;
      const options: InjectOptions = { method: part.method as NonNullable<InjectOptions['method']>, url: part.url, headers };
      if (part.body !== '') options.payload = part.body;
      const response = await app.inject(options);
      const lines = [
        'Content-Type: application/http',
        ...(part.contentId === undefined ? [] : [`Content-ID: ${responseId(part.contentId)}`]),
        '',
        `HTTP/1.1 ${response.statusCode} ${HTTP_REASON_PHRASES[response.statusCode] ?? (response.statusCode < 300 ? 'OK' : 'Error')}`,
        `Content-Type: ${String(response.headers['content-type'] ?? 'application/json; charset=UTF-8')}`,
        '',
        response.body,
      ];
      responses.push(lines.join('\r\n'));
    }
    const outBoundary = `batch_${hexId(ids, 12)}`;
    const body = `${responses.map((part) => `--${outBoundary}\r\n${part}\r\n`).join('')}--${outBoundary}--\r\n`;
    return reply.type(`multipart/mixed; boundary=${outBoundary}`).send(body);
  });
}

function splitParts(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const sections = body.split(delimiter);
  // Drop the preamble and everything from the closing delimiter on.
  const parts: string[] = [];
  for (const section of sections.slice(1)) {
    if (section.startsWith('--')) break;
    parts.push(section.replace(/^\r?\n/, '').replace(/\r?\n$/, ''));
  }
  if (parts.length === 0) throw badRequest('The batch request contains no parts.');
  return parts;
}

function parsePart(text: string): BatchPart {
  const [outerHeaderText, inner] = splitHead(text);
  const outer = parseHeaders(outerHeaderText);
  if (!/^application\/http/i.test(outer['content-type'] ?? '')) throw badRequest('Each batch part must have Content-Type: application/http.');
  const [requestHead, body] = splitHead(inner);
  const [requestLine = '', ...headerLines] = requestHead.split(/\r?\n/);
  const match = /^([A-Z]+)\s+(\S+)(?:\s+HTTP\/\d(?:\.\d)?)?$/.exec(requestLine.trim());
  if (match === null) throw badRequest(`Malformed request line in batch part: '${requestLine}'.`);
  let url = match[2]!;
  const absolute = /^https?:\/\/[^/]+(\/.*)$/.exec(url);
  if (absolute !== null) url = absolute[1]!;
  return { contentId: outer['content-id'], method: match[1]!, url, headers: parseHeaders(headerLines.join('\n')), body };
}

function splitHead(text: string): [string, string] {
  const match = /\r?\n\r?\n/.exec(text);
  if (match === null) return [text, ''];
  return [text.slice(0, match.index), text.slice(match.index + match[0].length)];
}

function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** responseId turns a request's `<ID>` Content-ID into the `<response-ID>` the client matches. */
function responseId(contentId: string): string {
  const bare = contentId.replace(/^<|>$/g, '');
  return `<response-${bare}>`;
}
