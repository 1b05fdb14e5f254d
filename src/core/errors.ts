import { UnavailableError } from '../lib/errors.ts';

/**
 * The error base every API family extends. A handler throws an ApiError subclass carrying its
 * wire data; the family's serializer (its ServiceDefinition.renderError) phrases it and core's one
 * error answer (error-answer.ts) sends it.
 * Handlers never write an error body themselves.
 */

/** ApiError is the root of every error that reaches a client on purpose. */
export abstract class ApiError extends Error {
  /** The HTTP status the error is answered with. */
  abstract readonly httpStatus: number;
  /** Extra response headers (e.g. WWW-Authenticate). */
  headers(): Record<string, string> {
    return {};
  }
}

/** HTTP_REASON_PHRASES gives each status its reason phrase, as real servers send them. */
export const HTTP_REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** TransportProblemKind names the failures core and Fastify find before a family's handler runs. */
export type TransportProblemKind =
  | 'body-too-large'
  | 'malformed-body'
  | 'unsupported-media-type'
  | 'bad-request'
  | 'not-found'
  | 'method-not-allowed'
  | 'bad-url'
  | 'uri-too-long'
  | 'headers-too-large'
  | 'unavailable';

/**
 * TransportProblemError carries a TransportProblem that core itself found (an unknown path, a
 * malformed URL, oversized headers) to the owning family's renderError.
 */
export class TransportProblemError extends Error {
  override readonly name = 'TransportProblemError';
  constructor(readonly problem: TransportProblem) {
    super(problem.detail);
  }
}

/**
 * TransportProblem describes a failure Fastify found before a handler ran (body too large,
 * malformed body, wrong content type), so each family can phrase it in its own dialect.
 */
export interface TransportProblem {
  readonly httpStatus: number;
  readonly kind: TransportProblemKind;
  readonly detail: string;
}

/** transportProblemOf classifies an error thrown by Fastify itself, or returns undefined for any other error. */
export function transportProblemOf(error: unknown): TransportProblem | undefined {
  if (error instanceof TransportProblemError) return error.problem;
  if (error instanceof UnavailableError) return { httpStatus: 503, kind: 'unavailable', detail: error.message };
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  const message = (error as { message?: unknown }).message;
  const detail = typeof message === 'string' ? message : String(error);
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { httpStatus: 413, kind: 'body-too-large', detail };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { httpStatus: 400, kind: 'malformed-body', detail };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { httpStatus: 415, kind: 'unsupported-media-type', detail };
    default:
      break;
  }
  if (error instanceof SyntaxError && (error as { statusCode?: unknown }).statusCode === 400) {
    return { httpStatus: 400, kind: 'malformed-body', detail };
  }
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { httpStatus: statusCode, kind: statusCode === 413 ? 'body-too-large' : 'bad-request', detail };
  }
  return undefined;
}
