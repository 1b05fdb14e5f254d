/**
 * TrafficRequest is one HTTP request as a Cloud Armor policy sees it at the load balancer: what
 * the what-if API receives as JSON and what the guard proxy builds from each incoming request.
 * Only preconfigured WAF calls read the body, through the WAF engine (docs/compute.md, "Evaluating policies").
 */
export interface TrafficRequest {
  /** method is the HTTP method as sent (`GET`). */
  readonly method: string;
  /** url is absolute: scheme, host, raw path and raw query (`https://example.com/a%20b?x=1`). */
  readonly url: string;
  /** headers have lower-case names; a repeated header is one value joined by ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** sourceIp is the peer address the load balancer sees (`origin.ip`), IPv4 or IPv6 text. */
  readonly sourceIp: string;
  /** regionCode is the ISO 3166-1 alpha-2 code of the client (`origin.region_code`); `''` when unknown. */
  readonly regionCode?: string;
  /** asn is the client's autonomous system number (`origin.asn`); 0 when unknown. */
  readonly asn?: number;
  /** tlsJa3Fingerprint is `origin.tls_ja3_fingerprint`; absent (plain HTTP) reads as `''`. */
  readonly tlsJa3Fingerprint?: string;
  /** tlsJa4Fingerprint is `origin.tls_ja4_fingerprint`; absent reads as `''`. */
  readonly tlsJa4Fingerprint?: string;
  /** sni is the TLS server name, the SNI rate-limit key; absent for plain HTTP. */
  readonly sni?: string;
  /**
   * body is the request body's bytes, as far as they were read: a proxy buffers at most the
   * policy's inspection limit (a longer body is judged on its first bytes). Only the WAF engine
   * reads it (`evaluatePreconfiguredWaf` is the one function that sees the body).
   */
  readonly body?: Uint8Array;
  /** httpVersion is informational (`1.1`, `2`). */
  readonly httpVersion?: string;
  /**
   * recaptcha states what Google's reCAPTCHA assessment would have said about the request's
   * tokens (it cannot run locally). Absent, every `token.*` attribute reads as an unavailable
   * token does: valid false, score 0.0, captcha_status `NONE` (docs: rules-language-reference).
   */
  readonly recaptcha?: RecaptchaTokens;
}

/** RecaptchaTokens are the `token.*` attributes a test declares for a request. */
export interface RecaptchaTokens {
  /** exemptionValid is `token.recaptcha_exemption.valid` (a valid `recaptcha-ca-e` cookie). */
  readonly exemptionValid?: boolean;
  readonly actionValid?: boolean;
  readonly actionScore?: number;
  /** actionCaptchaStatus is `NONE`, `PASS` or `FAIL`. */
  readonly actionCaptchaStatus?: string;
  readonly actionName?: string;
  readonly sessionValid?: boolean;
  readonly sessionScore?: number;
}
