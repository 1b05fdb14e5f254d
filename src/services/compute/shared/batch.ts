import { METHODS } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { InjectOptions } from 'fastify';
import { HTTP_REASON_PHRASES, TransportProblemError } from '../../../core/errors.ts';
import { MALFORMED_REQUEST } from '../../../core/family-errors.ts';
import { dictionary } from '../../../core/own.ts';
import { badRequest } from './errors.ts';
import type { IdSource } from '../../../lib/ids.ts';
import { hexId } from '../../../lib/ids.ts';
import { renderComputeError } from './error-serializer.ts';

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

/** BadPart is a part that cannot be run; it is answered on its own, inside the batch. */
interface BadPart {
  readonly contentId: string | undefined;
  readonly error: unknown;
}

/** The methods Node's HTTP parser accepts; any other request line is unreadable, as it would be sent directly. */
const HTTP_METHODS: ReadonlySet<string> = new Set(METHODS);

interface PartAnswer {
  readonly statusCode: number;
  readonly contentType: string;
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
      const answer = 'error' in part ? answerError(part.error) : await runPart(app, part, request.headers.authorization, request.headers.host);
      const lines = [
        'Content-Type: application/http',
        ...(part.contentId === undefined ? [] : [`Content-ID: ${responseId(part.contentId)}`]),
        '',
        `HTTP/1.1 ${answer.statusCode} ${HTTP_REASON_PHRASES[answer.statusCode] ?? (answer.statusCode < 300 ? 'OK' : 'Error')}`,
        `Content-Type: ${answer.contentType}`,
        '',
        answer.body,
      ];
      responses.push(lines.join('\r\n'));
    }
    const outBoundary = `batch_${hexId(ids, 12)}`;
    const body = `${responses.map((part) => `--${outBoundary}\r\n${part}\r\n`).join('')}--${outBoundary}--\r\n`;
    return reply.type(`multipart/mixed; boundary=${outBoundary}`).send(body);
  });
}

/** runPart sends one part through the same routes as a direct call; whatever goes wrong stays inside this part's answer. */
async function runPart(app: FastifyInstance, part: BatchPart, authorization: string | undefined, host: string | undefined): Promise<PartAnswer> {
  const headers: Record<string, string> = { ...part.headers };
  if (headers['authorization'] === undefined && authorization !== undefined) headers['authorization'] = authorization;
  if (host !== undefined) headers['host'] = host;
  const options: InjectOptions = { method: part.method as NonNullable<InjectOptions['method']>, url: part.url, headers };
  if (part.body !== '') options.payload = part.body;
  try {
    const response = await app.inject(options);
    return { statusCode: response.statusCode, contentType: String(response.headers['content-type'] ?? 'application/json; charset=UTF-8'), body: response.body };
  } catch (error) {
    return answerError(error);
  }
}

function answerError(error: unknown): PartAnswer {
  const response = renderComputeError(error, { method: 'POST', path: BATCH_PATH, contentType: undefined, bodyLimit: 0 });
  return {
    statusCode: response.status,
    contentType: response.headers['content-type'] ?? 'application/json; charset=UTF-8',
    body: JSON.stringify(response.body),
  };
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

function parsePart(text: string): BatchPart | BadPart {
  const [outerHeaderText, inner] = splitHead(text);
  const outer = parseHeaders(outerHeaderText);
  const contentId = outer['content-id'];
  if (!/^application\/http/i.test(outer['content-type'] ?? ''))
    return { contentId, error: badRequest('Each batch part must have Content-Type: application/http.') };
  const [requestHead, body] = splitHead(inner);
  const [requestLine = '', ...headerLines] = requestHead.split(/\r?\n/);
  const match = /^([A-Z]+)\s+(\S+)(?:\s+HTTP\/\d(?:\.\d)?)?$/.exec(requestLine.trim());
  // A request line Node's parser would refuse is answered as that refusal, in this part only.
  if (match === null || !HTTP_METHODS.has(match[1]!))
    return { contentId, error: new TransportProblemError({ httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST }) };
  let url = match[2]!;
  const absolute = /^https?:\/\/[^/]+(\/.*)$/.exec(url);
  if (absolute !== null) url = absolute[1]!;
  if (!url.startsWith('/')) return { contentId, error: new TransportProblemError({ httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST }) };
  // The compute batch endpoint serves the compute API only (every compute path is under
  // /projects/, with or without the /compute/v1 prefix): another family's path is not found here.
  const path = url.split('?')[0]!;
  if (!/^(\/compute\/v1)?\/projects\//.test(path) && path.replace(/\/+$/, '') !== BATCH_PATH) {
    return { contentId, error: new TransportProblemError({ httpStatus: 404, kind: 'not-found', detail: path }) };
  }
  // A batch inside a batch would let one request fan out without bound.
  if (url.split('?')[0]!.replace(/\/+$/, '') === BATCH_PATH) return { contentId, error: badRequest('A batch request cannot contain another batch request.') };
  return { contentId, method: match[1]!, url, headers: parseHeaders(headerLines.join('\n')), body };
}

function splitHead(text: string): [string, string] {
  const match = /\r?\n\r?\n/.exec(text);
  if (match === null) return [text, ''];
  return [text.slice(0, match.index), text.slice(match.index + match[0].length)];
}

function parseHeaders(text: string): Record<string, string> {
  const headers = dictionary<string>();
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
