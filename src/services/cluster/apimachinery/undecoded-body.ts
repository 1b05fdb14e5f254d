/**
 * A request body that could not be decoded, kept instead of failing the request while its body
 * is read: that happens before routing, and an unknown route is a 404 whatever the body (the
 * apiserver decodes a body only in the handler of a resource it serves). The handler that owns
 * the route rethrows the problem.
 */

/** UndecodedBody stands in for a body whose decoder failed, holding the decoder's error. */
export class UndecodedBody {
  constructor(readonly error: Error) {}
}

/** rethrowUndecodedBody throws the decoder's error when `body` could not be decoded. */
export function rethrowUndecodedBody(body: unknown): void {
  if (body instanceof UndecodedBody) throw body.error;
}
