/**
 * HOP_BY_HOP are the HTTP headers meaningful only for one connection (RFC 9110 §7.6.1, with the
 * legacy Keep-Alive and Proxy-Connection): a proxy never forwards them as they came, and a header
 * a policy adds cannot be one of them.
 */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
