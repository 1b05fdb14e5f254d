/**
 * The cluster family's typed errors: each carries exactly the `Status` object the Kubernetes API
 * server would send (apimachinery `api/errors`), and `statusBody` is the one place that turns
 * one into wire JSON.
 */
import { ApiError } from '../../../core/errors.ts';
import { aggregateFieldErrors, fieldErrorBody, type FieldError } from './field-errors.ts';

/** StatusCause is one entry of `details.causes`. */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** StatusDetails is the `details` object of a Status. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** GroupResource names a resource in messages: `clusterroles.rbac.authorization.k8s.io`, `namespaces`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** groupResourceText prints a GroupResource as messages do (`resource.group`, or the bare resource for the core group). */
export function groupResourceText(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** StatusError is a failed request as a Kubernetes `Status`: code, reason, message and details. */
export class StatusError extends ApiError {
  override readonly name = 'StatusError';
  constructor(
    readonly httpStatus: number,
    /** The machine reason (`NotFound`, `Invalid`, …); empty for an unknown failure. */
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** A Status may carry list metadata (the inconsistent continue token of a 410). */
    readonly listMeta?: { readonly continue?: string },
  ) {
    super(message);
  }

  override headers(): Record<string, string> {
    const retry = this.details?.retryAfterSeconds;
    return retry === undefined ? {} : { 'retry-after': String(retry) };
  }
}

/**
 * statusBody renders a StatusError as the wire `Status`, as Go's encoding/json writes metav1.Status:
 * fields in declaration order, `metadata` (a struct) always, and every omitempty field left out
 * when empty (a core resource's details carry no `"group":""`, a Status without a reason no `reason`).
 */
export function statusBody(error: StatusError): Record<string, unknown> {
  return encodeStatus('Failure', error.message, error.reason, error.details, error.httpStatus, error.listMeta);
}

/**
 * deletedStatus is the Status a DELETE answers when the object is gone at once and its storage does
 * not return the deleted object (genericregistry.Store.finalizeDelete): Success, no code, details
 * naming the object with the resource in `kind`.
 */
export function deletedStatus(gr: GroupResource, name: string, uid: string): Record<string, unknown> {
  return encodeStatus('Success', '', '', { name, group: gr.group, kind: gr.resource, uid }, 0, undefined);
}

/** encodeStatus writes a metav1.Status in Go's field order with its omitempty rules. */
function encodeStatus(
  status: string,
  message: string,
  reason: string,
  details: StatusDetails | undefined,
  code: number,
  listMeta: { readonly continue?: string } | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: listMeta?.continue === undefined || listMeta.continue === '' ? {} : { continue: listMeta.continue },
    status,
  };
  if (message !== '') out['message'] = message;
  if (reason !== '') out['reason'] = reason;
  if (details !== undefined) out['details'] = encodeDetails(details);
  if (code !== 0) out['code'] = code;
  return out;
}

/** encodeDetails writes metav1.StatusDetails: every field omitempty, in declaration order. */
function encodeDetails(details: StatusDetails): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (details.name !== undefined && details.name !== '') out['name'] = details.name;
  if (details.group !== undefined && details.group !== '') out['group'] = details.group;
  if (details.kind !== undefined && details.kind !== '') out['kind'] = details.kind;
  if (details.uid !== undefined && details.uid !== '') out['uid'] = details.uid;
  if (details.causes !== undefined && details.causes.length > 0) {
    out['causes'] = details.causes.map((cause) => {
      const encoded: Record<string, unknown> = {};
      if (cause.reason !== undefined && cause.reason !== '') encoded['reason'] = cause.reason;
      if (cause.message !== undefined && cause.message !== '') encoded['message'] = cause.message;
      if (cause.field !== undefined && cause.field !== '') encoded['field'] = cause.field;
      return encoded;
    });
  }
  if (details.retryAfterSeconds !== undefined && details.retryAfterSeconds !== 0) out['retryAfterSeconds'] = details.retryAfterSeconds;
  return out;
}

/** notFound is `<resource.group> "<name>" not found`. */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceText(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
}

/** alreadyExists is `<resource.group> "<name>" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResourceText(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });
}

/** OPTIMISTIC_LOCK_MESSAGE is the text of a resourceVersion mismatch on update. */
export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** conflict is `Operation cannot be fulfilled on <gr> "<name>": <why>`. */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceText(gr)} "${name}": ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** GroupKind names a kind in Invalid messages: `ClusterRole.rbac.authorization.k8s.io`, `Event`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** invalidObject is 422 `<Kind.group> "<name>" is invalid: <errors>` with one cause per field error. */
export function invalidObject(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  const qualified = gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
  const message = errors.length === 0 ? `${qualified} "${name}" is invalid` : `${qualified} "${name}" is invalid: ${aggregateFieldErrors(errors)}`;
  const causes = errors.map((error) => ({ reason: error.type, message: fieldErrorBody(error), field: error.field }));
  return new StatusError(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes });
}

/** badRequest is a 400 with free text. */
export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** expired is a 410 `Expired` (too-old resourceVersion or continue token). */
export function expired(message: string, continueToken?: string): StatusError {
  return new StatusError(410, 'Expired', message, undefined, continueToken === undefined ? undefined : { continue: continueToken });
}

/** unauthorized is the 401 every request without a valid bearer token gets. */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** forbidden is 403 `<gr> "<name>" is forbidden: <why>`. */
export function forbiddenError(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(403, 'Forbidden', `${groupResourceText(gr)} "${name}" is forbidden: ${why}`, { name, group: gr.group, kind: gr.resource });
}

/** methodNotSupported is 405 `<action> is not supported on resources of kind "<gr>"`. */
export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceText(gr)}"`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** unsupportedMediaType is 415 naming the media types that are accepted. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** notAcceptable is 406 naming the media types the server can produce. */
export function notAcceptable(produced: readonly string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${produced.join(', ')}`);
}

/** tooLargeResourceVersion is the 504 for a resourceVersion the store has not reached. */
export function tooLargeResourceVersion(requested: bigint, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/** requestEntityTooLarge is 413 for a body over the limit. */
export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/** notFoundPath is the 404 for a URL no resource answers (the real server's body for unknown paths). */
export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** internalError is the 500 for an unexpected failure. */
export function internalError(detail: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${detail}`, { causes: [{ message: detail }] });
}
