import { GoogleEnvelopeError } from '../google-error-envelope.ts';

/**
 * UploadError is a failure of the upload protocols themselves (wrong uploadType, a broken
 * multipart body, a bad Content-Range, an unknown session, too many bytes). It carries the
 * Google envelope's pieces — HTTP status, `errors[].reason` and the canonical `status` word — and
 * is rendered by the owning family's one serializer, like the family's own errors.
 */
export class UploadError extends GoogleEnvelopeError {
  override readonly name = 'UploadError';
}

/** wrongUrlForUpload is Google's answer to media sent to a metadata address, or to an upload address without `uploadType`. */
export function wrongUrlForUpload(): UploadError {
  return new UploadError(
    400,
    'wrongUrlForUpload',
    'INVALID_ARGUMENT',
    'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/',
  );
}

/** invalidUploadType names an `uploadType` value that is none of media, multipart, resumable. */
export function invalidUploadType(value: string): UploadError {
  return new UploadError(400, 'invalid', 'INVALID_ARGUMENT', `Invalid value for uploadType: '${value}'. Expected one of: media, multipart, resumable.`);
}

/** unsupportedMediaType is Google's `badContent` for a media type the method does not accept. */
export function unsupportedMediaType(mediaType: string, accept: readonly string[]): UploadError {
  return new UploadError(400, 'badContent', 'INVALID_ARGUMENT', `Media type '${mediaType}' is not supported. Valid media types: [${accept.join(', ')}]`);
}

/** mediaTooLarge is the 413 for media beyond the method's `maxSize`. */
export function mediaTooLarge(maxSize: number): UploadError {
  return new UploadError(413, 'uploadTooLarge', 'INVALID_ARGUMENT', `Media larger than the maximum size of ${maxSize} bytes.`);
}

/** badMultipart is a `multipart/related` body that does not hold one JSON part and one media part. */
export function badMultipart(detail: string): UploadError {
  return new UploadError(400, 'badRequest', 'INVALID_ARGUMENT', detail);
}

/** badMetadata is upload metadata (multipart JSON part, resumable initiation body) that is not a JSON object. */
export function badMetadata(detail: string): UploadError {
  return new UploadError(400, 'parseError', 'INVALID_ARGUMENT', `Invalid JSON payload received. ${detail}`);
}

/** sessionNotFound is the 404 for an `upload_id` that names no live session (never made, finished long ago or expired). */
export function sessionNotFound(uploadId: string): UploadError {
  return new UploadError(404, 'notFound', 'NOT_FOUND', `No upload session with upload_id '${uploadId}': it is unknown or has expired. Start a new upload.`);
}

/** badContentRange is a `Content-Range` header that cannot be parsed or contradicts the session or the body. */
export function badContentRange(detail: string): UploadError {
  return new UploadError(400, 'badRequest', 'INVALID_ARGUMENT', detail);
}

/** completionInProgress is the retryable 503 for a final chunk that arrives while another request (on any replica) completes the same session. */
export function completionInProgress(): UploadError {
  return new UploadError(503, 'backendError', 'UNAVAILABLE', 'The upload is being completed by another request. Query its status to get the result.');
}

/**
 * uploadNotProcessed is the retryable 503 for an upload whose processing did not end within the
 * engine's deadline, or that was still being processed when the server shut down. Google's front
 * end answers a backend that cannot answer with this envelope (reason backendError, status
 * UNAVAILABLE, its fixed text); 503 tells the client its bytes were not taken and it may retry.
 */
export function uploadNotProcessed(): UploadError {
  return new UploadError(503, 'backendError', 'UNAVAILABLE', 'The service is currently unavailable.');
}
