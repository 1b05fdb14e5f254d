/**
 * The seam through which the admin API (the `control` family) evaluates security policies without
 * importing the compute family (issue 30): compute declares `ServiceDefinition.policyEvaluation`,
 * a lazy loader of a factory; the control family finds it among the families the registry hands
 * it and builds one PolicyEvaluation over its own ServiceContext (the same store and clock).
 * Answers cross the seam as plain JSON values, so neither side needs the other's types.
 */
import type { ServiceContext } from './service.ts';

/** PolicyEvaluation is what the admin API asks of the family that keeps security policies. */
export interface PolicyEvaluation {
  /**
   * evaluate answers `POST /_fogbank/securityPolicies:evaluate`: the body
   * `{"policy": NAME | {…inline policy}, "requests": [{method, url, headers, sourceIp, …}]}`
   * becomes `{"results": [decision…]}`. Rate-limit counters of a named policy are kept between
   * calls (per policy, on the server's clock) until `reset`. Bad input throws PolicyEvaluationError.
   */
  evaluate(body: unknown): Promise<{ readonly results: readonly unknown[] }>;
  /**
   * replay answers `POST /_fogbank/securityPolicies:replay` (issue 39): `{"policy": NAME,
   * "proposed": {…policy} | "rules": [{priority, rule}], "requests": [{…, time}], "wafUnknown"}`
   * becomes `{"policy", "evaluated", "changed", "transitions", "countsByRule", "coverage",
   * "neverMatched"}`: the requests evaluated in order under the policy in force and the proposed
   * one, each on a simulated clock reading the requests' times. Bad input throws PolicyEvaluationError.
   */
  replay(body: unknown): Promise<Readonly<Record<string, unknown>>>;
  /** read is the named policy's wire form (as the compute API answers a GET), undefined when it does not exist; a bad name throws PolicyEvaluationError. */
  read(name: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /**
   * follow reads the named policy and calls `listener` with its wire form (as the compute API
   * answers a GET), then again with every committed change, and with `undefined` while it does not
   * exist. Resolves with the function that stops following; a bad name throws PolicyEvaluationError.
   */
  follow(name: string, listener: (policy: Readonly<Record<string, unknown>> | undefined) => void): Promise<() => void>;
  /**
   * followBackendService reads the named backend service (`projects/P/global/backendServices/N`)
   * and calls `listener` with it and the policy attached to it now, then again whenever either
   * changes (another policy attached, the policy detached, the attached policy's rules changed),
   * and with `undefined` while the backend service does not exist. A bad name throws
   * PolicyEvaluationError.
   */
  followBackendService(name: string, listener: (attachment: BackendAttachment | undefined) => void): Promise<() => void>;
  /** readBackendService is the same reading once (undefined when the backend service does not exist). */
  readBackendService(name: string): Promise<BackendAttachment | undefined>;
  /** reset forgets every rate-limit counter and ban (`POST /_fogbank/reset`). */
  reset(): void;
  /** close ends what the evaluation started (the WAF engine's threads), when the server closes. */
  close(): Promise<void>;
}

/** BackendAttachment is a backend service and the security policy attached to it, each in its wire form; no `policy` when none is attached. */
export interface BackendAttachment {
  readonly backendService: Readonly<Record<string, unknown>>;
  readonly policy?: Readonly<Record<string, unknown>>;
}

/** PolicyEvaluationFactory builds the evaluation over a family's context. */
export type PolicyEvaluationFactory = (context: ServiceContext) => PolicyEvaluation;

/** PolicyEvaluationError is input the evaluation refuses: 400 (bad input) or 404 (no such policy), with a sentence naming what is wrong. */
export class PolicyEvaluationError extends Error {
  override readonly name = 'PolicyEvaluationError';
  constructor(
    readonly httpStatus: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}
