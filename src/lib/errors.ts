/**
 * Errors that are not HTTP answers: what any layer (the store, core, a family) may throw for
 * core to classify. Each family phrases them in its own dialect.
 */

/**
 * UnavailableError says a dependency every family shares (the store's database) cannot be
 * reached right now. It is not the request's fault and retrying later can succeed, so each
 * family answers it as its own 503 (transportProblemOf classifies it as `unavailable`).
 */
export class UnavailableError extends Error {
  override readonly name: string = 'UnavailableError';
}
