/**
 * Continue tokens as the real server makes them (apiserver `storage/continue.go`): base64url
 * (unpadded) of `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<next key>\u0000"}`, the key
 * relative to the list's key prefix. rv -1 marks the "inconsistent" token handed out with a 410.
 */
import { badRequest, type StatusError } from './status.ts';

/** ContinuePoint is where a paged list resumes: the revision it is consistent at, and the key after the last one served. */
export interface ContinuePoint {
  /** The list revision, or -1 for "continue at the latest state". */
  readonly revision: number;
  /** The last key served (relative to the list prefix). */
  readonly after: string;
}

/** encodeContinue makes the token for a page that ended at `lastKey`. */
export function encodeContinue(revision: number, lastKey: string): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: `${lastKey}\u0000` });
  return Buffer.from(json, 'utf8').toString('base64url');
}

function invalidToken(detail: string): StatusError {
  return badRequest(`invalid continue token: continue key is not valid${detail === '' ? '' : `: ${detail}`}`);
}

/** decodeContinue reads a token back; malformed tokens are the real 400s. */
export function decodeContinue(token: string): ContinuePoint {
  const badByte = /[^A-Za-z0-9_-]/.exec(token);
  if (badByte !== null) throw invalidToken(`illegal base64 data at input byte ${badByte.index}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('invalid character looking for beginning of value');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidToken('json: cannot unmarshal into Go value of type storage.continueToken');
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== 'meta.k8s.io/v1')
    throw badRequest(`invalid continue token: continue key is not valid server does not recognize this encoding (${typeof v === 'string' ? v : ''})`);
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv === 0) throw invalidToken('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '') throw invalidToken('encoded start key empty (version meta.k8s.io/v1)');
  const key = start.endsWith('\u0000') ? start.slice(0, -1) : start;
  // The key stays inside the list's prefix: no traversal out of it.
  if (key.split('/').some((segment) => segment === '..' || segment === '.')) throw invalidToken(key);
  return { revision: rv, after: key };
}
