/**
 * The control family's one error serializer and the check the bad-input fuzzer holds its error
 * answers to.
 */
import { transportProblemOf } from '../../core/errors.ts';
import type { ErrorResponse, ErrorSite } from '../../core/service.ts';
import { ControlError, statusWordOf } from './errors.ts';

/** toControlError maps anything thrown under `/_fogbank` onto the admin API's dialect. */
export function toControlError(error: unknown, site: ErrorSite): ControlError {
  if (error instanceof ControlError) return error;
  const problem = transportProblemOf(error);
  if (problem === undefined) return new ControlError(500, 'Internal error encountered.');
  switch (problem.kind) {
    case 'not-found':
      return new ControlError(404, `No admin API at ${problem.detail}.`);
    case 'method-not-allowed':
      return new ControlError(405, `Method ${site.method} is not supported by ${site.path}.`);
    case 'body-too-large':
      return new ControlError(413, `The request body exceeds the limit of ${site.bodyLimit} bytes.`);
    case 'malformed-body':
      return new ControlError(400, `The request body is not valid JSON: ${problem.detail}`);
    case 'unsupported-media-type':
      return new ControlError(415, `Content type ${site.contentType ?? '(none)'} is not supported: send application/json.`);
    default:
      return new ControlError(problem.httpStatus, problem.detail === '' ? 'The request is malformed.' : problem.detail);
  }
}

/** renderControlError is the control family's one error serializer (ServiceDefinition.renderError). */
export function renderControlError(error: unknown, site: ErrorSite): ErrorResponse {
  const controlError = toControlError(error, site);
  const headers: Record<string, string> = { ...controlError.headers(), 'content-type': 'application/json; charset=utf-8' };
  if (controlError.httpStatus === 401) headers['www-authenticate'] = 'Bearer realm="fogbank"';
  return {
    status: controlError.httpStatus,
    headers,
    body: { error: { code: controlError.httpStatus, status: controlError.status, message: controlError.message } },
  };
}

/** controlErrorProblem says what keeps `body` from being an admin API error with `status` (ServiceDefinition.errorBodyProblem). */
export function controlErrorProblem(status: number, body: unknown): string | undefined {
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body['error'])) return 'not {"error":{…}}';
  const error = body['error'];
  if (Object.keys(error).sort().join() !== 'code,message,status') return 'error members are not exactly code, status, message';
  if (error['code'] !== status) return `code ${String(error['code'])} is not the HTTP status ${status}`;
  if (error['status'] !== statusWordOf(status)) return `status ${String(error['status'])} is not ${statusWordOf(status)}`;
  if (typeof error['message'] !== 'string' || error['message'] === '') return 'no message';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
