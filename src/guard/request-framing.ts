/**
 * Framing the guard refuses before deciding (RFC 9112 §3.2, §6.1, §6.3): a request whose length
 * or host two readers could read differently is answered 400 and never forwarded, because the
 * policy would decide on one reading and the upstream act on another. node's parser already
 * refuses obs-fold, a repeated or listed Content-Length and Transfer-Encoding beside
 * Content-Length; the checks are repeated here over the headers as sent so the guard's promise
 * does not rest on a parser's defaults, and add what the parser lets through: a repeated Host, a
 * Transfer-Encoding whose last coding is not chunked, a Transfer-Encoding on HTTP/1.0.
 */
import type { HeaderPair } from './proxy-headers.ts';

/** framingProblem is the reason a request's framing is refused, or undefined when it is sound. */
export function framingProblem(pairs: readonly HeaderPair[], httpVersion: string): string | undefined {
  let hosts = 0;
  let lengths = 0;
  const codings: string[] = [];
  let encoded = false;
  for (const [name, value] of pairs) {
    if (value.includes('\r') || value.includes('\n')) return `guard: the header '${name.slice(0, 100)}' is folded over lines (obs-fold)`;
    const key = name.toLowerCase();
    if (key === 'host') hosts++;
    else if (key === 'content-length') {
      lengths++;
      if (!/^\d{1,15}$/.test(value)) return `guard: Content-Length '${value.slice(0, 100)}' is not one length`;
    } else if (key === 'transfer-encoding') {
      encoded = true;
      for (const coding of value.split(',')) codings.push(coding.trim().toLowerCase());
    }
  }
  if (hosts > 1) return 'guard: the request has more than one Host header';
  if (lengths > 1) return 'guard: the request has more than one Content-Length header';
  if (encoded) {
    if (lengths > 0) return 'guard: the request has both Transfer-Encoding and Content-Length';
    if (httpVersion === '1.0') return 'guard: an HTTP/1.0 request cannot use Transfer-Encoding';
    if (codings.at(-1) !== 'chunked') return `guard: the last transfer coding of the request is '${codings.at(-1) ?? ''}', not chunked`;
  }
  return undefined;
}
