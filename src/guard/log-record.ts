/**
 * The line the guard writes for each decision: a Cloud Logging entry in the shape of Cloud Armor's
 * request log (`jsonPayload` of type LoadBalancerLogEntry with `enforcedSecurityPolicy`,
 * `previewSecurityPolicy`, `statusDetails`; `httpRequest` with method, URL, status, remote IP and
 * latency), so Logging-style filters such as `jsonPayload.enforcedSecurityPolicy.outcome="DENY"`
 * read it as they read the real one. The same payload goes to fogbank's request journal.
 */

/** LOG_ENTRY_TYPE is the `@type` of a load balancer's request log payload. */
export const LOG_ENTRY_TYPE = 'type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry';

/** PolicyRecord is `enforcedSecurityPolicy` / `previewSecurityPolicy` as the decision carries it. */
export type PolicyRecord = Readonly<Record<string, unknown>>;

/** Exchange is one proxied request and what became of it. */
export interface Exchange {
  readonly time: number;
  readonly method: string;
  readonly url: string;
  /** target is the request line's target as sent (the path and query, or an absolute URL). */
  readonly target: string;
  readonly status: number;
  readonly remoteIp: string;
  readonly latencyMs: number;
  readonly userAgent: string | undefined;
  /** statusDetails says who answered: the policy (`denied_by_security_policy`, …), the upstream (`response_sent_by_backend`) or the guard (`failed_to_connect_to_backend`, …). */
  readonly statusDetails: string;
  readonly enforced: PolicyRecord | undefined;
  readonly preview: PolicyRecord | undefined;
  /** requestData is the log's `securityPolicyRequestData`: what the policy read about the client. */
  readonly requestData: PolicyRecord | undefined;
  /** headers are the request's headers as the policy read them (lower-case names, repeats joined), when it could be read. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * UNLOGGED_HEADERS are the headers whose values the log never carries (credentials): the name
 * stays, so a rule asking whether one is present replays alike, with the value REDACTED.
 */
export const UNLOGGED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);
/** REDACTED stands for a credential header's value in the log. */
export const REDACTED = '(redacted)';

/**
 * requestRecordOf is the payload's `fogbankRequest`, fogbank's own member beside Cloud Armor's
 * (a jsonPayload is a free-form Struct): what `fogbank policy replay` needs to evaluate the
 * request again, its time on fogbank's clock, absolute URL and headers (credentials redacted).
 */
function requestRecordOf(exchange: Exchange): Record<string, unknown> | undefined {
  if (exchange.headers === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) headers[name] = UNLOGGED_HEADERS.has(name) ? REDACTED : value;
  return { time: new Date(exchange.time).toISOString(), url: exchange.url, headers };
}

/** jsonPayloadOf is the request log's `jsonPayload` for one exchange. */
export function jsonPayloadOf(exchange: Exchange): Record<string, unknown> {
  const request = requestRecordOf(exchange);
  return {
    '@type': LOG_ENTRY_TYPE,
    statusDetails: exchange.statusDetails,
    remoteIp: exchange.remoteIp,
    ...(exchange.enforced === undefined ? {} : { enforcedSecurityPolicy: exchange.enforced }),
    ...(exchange.preview === undefined ? {} : { previewSecurityPolicy: exchange.preview }),
    ...(exchange.requestData === undefined ? {} : { securityPolicyRequestData: exchange.requestData }),
    ...(request === undefined ? {} : { fogbankRequest: request }),
  };
}

/**
 * logLineOf is the whole log entry as one JSON line (no newline), with `payloadJson` the
 * JSON.stringify of its jsonPayload (and `resource` the monitored resource, the backend service's
 * load balancer when the guard follows one): the payload is serialised once and shared with the journal's
 * batch, and the line is the same text as stringifying the whole entry.
 */
export function logLineOf(exchange: Exchange, payloadJson: string, resource?: Readonly<Record<string, unknown>>): string {
  const head = JSON.stringify({
    ...(resource === undefined ? {} : { resource }),
    timestamp: new Date(exchange.time).toISOString(),
    severity: exchange.status >= 500 ? 'ERROR' : exchange.status >= 400 ? 'WARNING' : 'INFO',
    httpRequest: {
      requestMethod: exchange.method,
      requestUrl: exchange.url,
      status: exchange.status,
      remoteIp: exchange.remoteIp,
      latency: `${(exchange.latencyMs / 1000).toFixed(6)}s`,
      ...(exchange.userAgent === undefined ? {} : { userAgent: exchange.userAgent }),
      protocol: 'HTTP/1.1',
    },
  });
  return `${head.slice(0, -1)},"jsonPayload":${payloadJson}}`;
}
