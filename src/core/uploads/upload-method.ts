import type { FastifyRequest } from 'fastify';
import type { MediaLimits } from './media-type.ts';

/** UploadedMedia is the media of a finished upload, on disk: the method reads, moves or links it; core removes what is left. */
export interface UploadedMedia {
  readonly path: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** The media's own type (the media part's, the request's, or `X-Upload-Content-Type`). */
  readonly mediaType: string;
}

/** CompletedUpload is what a method gets once every byte arrived: the JSON metadata (`{}` when none) and the media. */
export interface CompletedUpload {
  readonly metadata: Record<string, unknown>;
  readonly media: UploadedMedia;
  /**
   * Aborted when the request was already answered without the method (its deadline passed, or
   * the server is shutting down): a method must not keep what it made after that.
   */
  readonly signal: AbortSignal;
}

/** UploadAnswer is the method's success response. */
export interface UploadAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * UploadMethod is one method that accepts media (messages.send, drafts.create, uploadbundle).
 * `begin` runs before a single byte is accepted (authentication, scopes, the target's
 * existence) and returns the JSON-serialisable context completion needs — a resumable session
 * keeps it across restarts, so completion never depends on who sends the last chunk.
 */
export interface UploadMethod<C> {
  /** A stable name (`gmail.users.messages.send`): sessions refer to their method by it after a restart. */
  readonly id: string;
  readonly limits: MediaLimits;
  begin(request: FastifyRequest): Promise<C> | C;
  complete(upload: CompletedUpload, context: C): Promise<UploadAnswer>;
}
