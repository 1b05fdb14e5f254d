// The public surface of the upload protocols: families import from here.
export { UploadEngine, type UploadEngineOptions } from './upload-engine.ts';
export type { CompletedUpload, UploadAnswer, UploadedMedia, UploadMethod } from './upload-method.ts';
export { acceptsMediaType, parseContentType, type MediaLimits, type ParsedContentType } from './media-type.ts';
export { openFileArea, type FileArea } from './file-area.ts';
export { UploadError, wrongUrlForUpload } from './errors.ts';
export { SESSION_LIFETIME_MS } from './resumable-sessions.ts';
export { spoolToFile, type SpooledFile } from './spool.ts';
