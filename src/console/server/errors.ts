/**
 * The console's API speaks the admin API's JSON error dialect (`{"error":{code,status,message}}`):
 * both live under `/_fogbank`, and one dialect there is easier on scripts and the fuzzer.
 */
import { transportProblemOf } from '../../core/errors.ts';
import type { ErrorResponse, ErrorSite } from '../../core/service.ts';
import { ControlError } from '../../services/control/public.ts';

/** ConsoleError is a console API error (the admin API's error type). */
export { ControlError as ConsoleError } from '../../services/control/public.ts';

/** renderConsoleError is the console's one error serializer (ServiceDefinition.renderError). */
export function renderConsoleError(error: unknown, site: ErrorSite): ErrorResponse {
  const problem = error instanceof ControlError ? undefined : transportProblemOf(error);
  let known: ControlError;
  if (error instanceof ControlError) known = error;
  else if (problem === undefined) known = new ControlError(500, 'Internal error encountered.');
  else if (problem.kind === 'not-found') known = new ControlError(404, `No console page or API at ${problem.detail}.`);
  else if (problem.kind === 'method-not-allowed') known = new ControlError(405, `Method ${site.method} is not supported by ${site.path}.`);
  else if (problem.kind === 'body-too-large') known = new ControlError(413, `The request body exceeds the limit of ${site.bodyLimit} bytes.`);
  else if (problem.kind === 'malformed-body') known = new ControlError(400, `The request body is not valid JSON: ${problem.detail}`);
  else if (problem.kind === 'unsupported-media-type')
    known = new ControlError(415, `Content type ${site.contentType ?? '(none)'} is not supported: send application/json.`);
  else known = new ControlError(problem.httpStatus, problem.detail === '' ? 'The request is malformed.' : problem.detail);
  return {
    status: known.httpStatus,
    headers: { ...known.headers(), 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
    body: { error: { code: known.httpStatus, status: known.status, message: known.message } },
  };
}
