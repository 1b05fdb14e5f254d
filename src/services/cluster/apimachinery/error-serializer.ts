/**
 * The cluster family's one error serializer: everything thrown under its paths (its own
 * StatusErrors, problems core or Fastify found before a handler ran, unexpected exceptions)
 * becomes a `Status` object, as the Kubernetes API server answers.
 */
import { transportProblemOf } from '../../../core/errors.ts';
import { InjectedFault } from '../../../core/faults/injected-fault.ts';
import { injectedStatus } from './injected-status.ts';
import { JsonTooDeepError, MAX_JSON_DEPTH, MalformedJsonError } from '../../../core/json-body.ts';
import type { ErrorResponse, ErrorSite } from '../../../core/service.ts';
import { YamlAliasingError, YamlBusyError, YamlDecodeLimitError, YamlTooDeepError } from '../../../core/yaml-errors.ts';
import { badRequest, internalError, methodNotSupported, notFoundPath, requestEntityTooLarge, StatusError, statusBody, unsupportedMediaType } from './status.ts';

/** ACCEPTED_BODY_TYPES are the body media types writes accept. */
export const ACCEPTED_BODY_TYPES: readonly string[] = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** ACCEPTED_PATCH_TYPES are the PATCH media types served, in the order the real 415 lists them. */
export const ACCEPTED_PATCH_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** goJsonError words a JSON.parse failure the way Go's encoding/json does. */
function goJsonError(error: MalformedJsonError): string {
  // Go's scanner stops at the bracket one level too deep; its limit is 10000, fogbank's lower.
  if (error instanceof JsonTooDeepError) return `invalid character '${error.body[error.position ?? 0] ?? '['}' exceeded max depth`;
  if (/end of JSON input|Unterminated/.test(error.detail) || error.position === undefined || error.position >= error.body.length)
    return 'unexpected end of JSON input';
  const char = error.body[error.position] ?? '';
  return `invalid character '${char}' looking for beginning of value`;
}

/** toStatusError maps anything thrown inside the cluster family onto a StatusError. */
export function toStatusError(error: unknown, site: ErrorSite): StatusError {
  if (error instanceof StatusError) return error;
  if (error instanceof InjectedFault) return injectedStatus(error);
  if (error instanceof MalformedJsonError) return badRequest(`couldn't get version/kind; json parse error: ${goJsonError(error)}`);
  if (error instanceof YamlBodyError) return badRequest(`error converting YAML to JSON: ${error.message}`);
  // go-yaml's words (scannerc.go, decode.go), with fogbank's depth limit: its own is 10000, and
  // it names the line only past the first.
  if (error instanceof YamlTooDeepError) {
    return badRequest(
      `error converting YAML to JSON: yaml: ${error.line !== undefined && error.line > 1 ? `line ${error.line}: ` : ''}exceeded max depth of ${MAX_JSON_DEPTH}`,
    );
  }
  if (error instanceof YamlAliasingError) return badRequest('error converting YAML to JSON: yaml: document contains excessive aliasing');
  // fogbank's own bounds on decoding (go-yaml has no deadline), worded as a decoding error with the honest reason.
  if (error instanceof YamlDecodeLimitError) return badRequest(`error converting YAML to JSON: yaml: ${error.message}`);
  if (error instanceof YamlBusyError) return error.why === 'closing' ? shuttingDown() : tooManyRequests();
  if (error instanceof Error && error.name === 'ProtobufBodyError') return badRequest(error.message);
  const problem = transportProblemOf(error);
  if (problem !== undefined) {
    switch (problem.kind) {
      case 'body-too-large':
        return requestEntityTooLarge(site.bodyLimit);
      case 'unsupported-media-type':
        return unsupportedMediaType(site.method === 'PATCH' ? ACCEPTED_PATCH_TYPES : ACCEPTED_BODY_TYPES);
      case 'not-found':
        return notFoundPath();
      case 'method-not-allowed':
        return methodNotSupported({ group: '', resource: site.path }, site.method);
      case 'malformed-body':
        return badRequest(`couldn't get version/kind; json parse error: ${problem.detail}`);
      default:
        return new StatusError(problem.httpStatus, problem.httpStatus === 400 ? 'BadRequest' : '', problem.detail);
    }
  }
  return internalError(error instanceof Error ? error.message : String(error));
}

/**
 * tooManyRequests is the apiserver's max-in-flight refusal: 429 with Retry-After 1 and these words
 * (the apiserver writes them as plain text; here a Status, NewTooManyRequests's shape, so every
 * answer stays in the dialect).
 */
function tooManyRequests(): StatusError {
  return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
}

/** shuttingDown is what the apiserver answers a request that arrives while it shuts down (filters/waitgroup.go): 503 with Retry-After 1 and no details. */
function shuttingDown(): StatusError {
  return new (class extends StatusError {
    override headers(): Record<string, string> {
      return { 'retry-after': '1' };
    }
  })(503, 'ServiceUnavailable', 'apiserver is shutting down');
}

/** YamlBodyError is a YAML request body that does not parse. */
export class YamlBodyError extends Error {
  override readonly name = 'YamlBodyError';
}

/** renderClusterError is the family's ServiceDefinition.renderError. */
export function renderClusterError(error: unknown, site: ErrorSite): ErrorResponse {
  const status = toStatusError(error, site);
  return {
    status: status.httpStatus,
    headers: { ...status.headers(), 'content-type': 'application/json', 'cache-control': 'no-cache, private' },
    body: statusBody(status),
  };
}

/**
 * clusterErrorBodyProblem checks a body against the Status dialect (ServiceDefinition.errorBodyProblem):
 * `kind: Status`, `apiVersion: v1`, `status: Failure`, a message, the code equal to the HTTP
 * status; `reason` and `details` as a real apiserver writes them when it has them.
 */
export function clusterErrorBodyProblem(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not an object';
  const value = body as Record<string, unknown>;
  const extra = Object.keys(value).filter((key) => !['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code'].includes(key));
  if (extra.length > 0) return `unexpected members ${extra.join(', ')}`;
  if (value['kind'] !== 'Status' || value['apiVersion'] !== 'v1') return 'not a v1 Status';
  if (value['status'] !== 'Failure') return `status is ${String(value['status'])}, not Failure`;
  if (value['code'] !== status) return `code ${String(value['code'])} is not the HTTP status ${status}`;
  if (typeof value['message'] !== 'string' || value['message'] === '') return 'no message';
  if (value['reason'] !== undefined && !/^[A-Z][A-Za-z]*$/.test(String(value['reason']))) return 'reason is not a StatusReason';
  if (value['details'] !== undefined && (typeof value['details'] !== 'object' || value['details'] === null)) return 'details is not an object';
  return undefined;
}
