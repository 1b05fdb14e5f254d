/**
 * The admission webhook plugins (1.32 `admission/plugin/webhook/{generic,mutating,validating}`):
 * configurations in name order, webhooks in list order; each webhook matched by its rules,
 * matchPolicy, namespace and object selectors and CEL matchConditions (any false skips; errors
 * follow failurePolicy: Fail refuses with 403); a dry-run request refused for webhooks with side
 * effects; then called (webhook-call.ts) with an AdmissionReview v1. Mutating webhooks run one
 * after another, their JSONPatch applied in order, and `reinvocationPolicy: IfNeeded` webhooks run
 * once more when a later webhook changed the object; validating webhooks run in parallel and the
 * first refusal to arrive is the answer. Call failures refuse under Fail (500 `failed calling
 * webhook`) and are skipped under Ignore (a failed-open audit annotation). Webhooks never see the
 * admission configuration kinds themselves.
 */
import type { Store } from '../../../../store/index.ts';
import { applyJsonPatch } from '../../apimachinery/json-patch.ts';
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import { StatusError, type StatusDetails } from '../../apimachinery/status.ts';
import type { UserInfo } from '../../cluster-auth.ts';
import type { AuthzDecision, AuthzRequest } from '../../crd/cel/library-authz.ts';
import { plainForbidden } from '../admission-errors.ts';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes.ts';
import { type MatchContext, type MatchResources, matches, type RuleWithOperations } from '../matching.ts';
import { Activation, Budget, type Compiled, compileExpression, MATCH_CONDITIONS_COST_BUDGET } from '../policy/expressions.ts';
import { authorizerValue, requestValue } from '../request-value.ts';
import type { ConfigurationSet, StoredConfigurations } from '../stored-configurations.ts';
import { InvalidResponse, reviewRequest, verifyResponse } from './admission-review.ts';
import { type ClientConfig, ResolveError, resolveTarget } from './service-endpoints.ts';
import { callWebhook, WebhookAgents, WebhookCallError } from './webhook-call.ts';

/** Webhook is one `webhooks[]` entry. */
export interface Webhook {
  readonly name?: string;
  readonly clientConfig?: ClientConfig;
  readonly rules?: readonly RuleWithOperations[];
  readonly failurePolicy?: string;
  readonly matchPolicy?: string;
  readonly namespaceSelector?: Record<string, unknown>;
  readonly objectSelector?: Record<string, unknown>;
  readonly sideEffects?: string;
  readonly timeoutSeconds?: number;
  readonly admissionReviewVersions?: readonly string[];
  readonly matchConditions?: readonly { readonly name?: string; readonly expression?: string }[];
  readonly reinvocationPolicy?: string;
}

/** WebhookContext is what the plugins read besides the configuration: namespaces, RBAC for matchConditions. */
export interface WebhookContext extends MatchContext {
  authorizer(): Promise<(user: UserInfo, request: AuthzRequest) => AuthzDecision>;
}

const EXEMPT = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/** CallFailure is a call that produced no usable answer; failurePolicy decides. */
class CallFailure extends Error {
  override readonly name = 'CallFailure';
}

const conditionsCompiled = new WeakMap<Webhook, { readonly name: string; readonly compiled: Compiled }[]>();

function conditionsOf(webhook: Webhook): { readonly name: string; readonly compiled: Compiled }[] {
  let compiled = conditionsCompiled.get(webhook);
  if (compiled === undefined) {
    const declared = { params: false, authorizer: true, namespaceObject: false, variables: false as const };
    compiled = (webhook.matchConditions ?? []).map((condition) => ({
      name: condition.name ?? '',
      compiled: compileExpression(condition.expression ?? '', declared, 'bool'),
    }));
    conditionsCompiled.set(webhook, compiled);
  }
  return compiled;
}

/** webhooksOf lists a kind's webhooks: configurations by name, webhooks in list order. */
function webhooksOf(set: ConfigurationSet): { configuration: string; webhook: Webhook }[] {
  const out: { configuration: string; webhook: Webhook }[] = [];
  for (const name of [...set.keys()].sort()) {
    const configuration = set.get(name) as KubeObject & { webhooks?: Webhook[] };
    for (const webhook of configuration.webhooks ?? []) out.push({ configuration: name, webhook });
  }
  return out;
}

/** failedCalling is the 500 of a call failure under Fail. */
function failedCalling(name: string, message: string): StatusError {
  const cause = `failed calling webhook "${name}": ${message}`;
  return new StatusError(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] });
}

function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** denial is a webhook's refusal: its status passed through, the code raised to at least 400. */
function denial(
  name: string,
  status: { readonly code?: number; readonly reason?: string; readonly message?: string; readonly details?: unknown } | undefined,
): StatusError {
  const code = typeof status?.code === 'number' && status.code >= 400 ? status.code : 400;
  const reason = typeof status?.reason === 'string' ? status.reason : '';
  const why = typeof status?.message === 'string' && status.message !== '' ? status.message : reason;
  const message = why === '' ? `admission webhook "${name}" denied the request without explanation` : `admission webhook "${name}" denied the request: ${why}`;
  const details = status?.details !== null && typeof status?.details === 'object' ? (status.details as StatusDetails) : undefined;
  return new StatusError(code, reason, message, details);
}

/** goJsonError is encoding/json's text for a body that is not JSON. */
function goJsonError(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'unexpected end of JSON input';
  return `invalid character '${trimmed[0]}' looking for beginning of value`;
}

/** statusText is client-go's error for a non-2xx answer. */
function statusText(status: number, body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { kind?: string; message?: string };
    if (parsed.kind === 'Status' && typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not a Status
  }
  if (status === 404) return 'the server could not find the requested resource';
  return `an error on the server ("${body.toString('utf8').slice(0, 1024)}") has prevented the request from succeeding`;
}

/** Webhooks runs the mutating and the validating webhooks. */
export class Webhooks {
  readonly agents = new WebhookAgents();
  constructor(
    readonly configurations: StoredConfigurations,
    readonly store: Store,
    readonly context: WebhookContext,
  ) {}

  /** active: some webhook configuration exists. */
  active(): boolean {
    return this.configurations.mutatingWebhooks.size > 0 || this.configurations.validatingWebhooks.size > 0;
  }

  /** admit runs the mutating webhooks in order (and IfNeeded ones again when a later one changed the object); the object as mutated, or undefined. */
  async admit(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined): Promise<KubeObject | undefined> {
    if (this.configurations.mutatingWebhooks.size === 0 || this.#exempt(attributes)) return undefined;
    const hooks = webhooksOf(this.configurations.mutatingWebhooks);
    let current = attributes;
    let changed = false;
    const invokedIfNeeded: number[] = [];
    const marked = new Set<number>();
    for (const [index, { webhook }] of hooks.entries()) {
      const result = await this.#mutate(webhook, current, outcome, 0, index);
      if (result === 'skipped') continue;
      if (result !== undefined) {
        current = { ...current, object: result };
        changed = true;
        for (const earlier of invokedIfNeeded) marked.add(earlier);
      }
      if (webhook.reinvocationPolicy === 'IfNeeded') invokedIfNeeded.push(index);
    }
    for (const index of [...marked].sort((a, b) => a - b)) {
      const result = await this.#mutate(hooks[index]!.webhook, current, outcome, 1, index);
      if (result !== 'skipped' && result !== undefined) current = { ...current, object: result };
    }
    return changed ? current.object : undefined;
  }

  /** validate calls every matching validating webhook at once; the first refusal to arrive is thrown. */
  async validate(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined): Promise<void> {
    if (this.configurations.validatingWebhooks.size === 0 || this.#exempt(attributes)) return;
    const hooks = webhooksOf(this.configurations.validatingWebhooks);
    const refusals: StatusError[] = [];
    await Promise.all(
      hooks.map(async ({ webhook }, index) => {
        try {
          if (!(await this.#matches(webhook, attributes))) return;
          const response = await this.#invoke(webhook, attributes, false);
          if (response === undefined) {
            outcome?.add([], { [`failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`]: webhook.name ?? '' });
            return;
          }
          this.#passOn(webhook, response, outcome);
          if (response.allowed !== true) throw denial(webhook.name ?? '', response.status);
        } catch (error) {
          refusals.push(error instanceof StatusError ? error : internalError(error instanceof Error ? error.message : String(error)));
        }
      }),
    );
    if (refusals.length > 0) throw refusals[0];
  }

  #exempt(attributes: AdmissionAttributes): boolean {
    return attributes.view.group === 'admissionregistration.k8s.io' && EXEMPT.has(attributes.view.resource);
  }

  /** mutate calls one mutating webhook: 'skipped' when it does not match or failed open, the patched object, or undefined when it changed nothing. */
  async #mutate(
    webhook: Webhook,
    attributes: AdmissionAttributes,
    outcome: AdmissionOutcome | undefined,
    round: number,
    index: number,
  ): Promise<KubeObject | undefined | 'skipped'> {
    if (!(await this.#matches(webhook, attributes))) return 'skipped';
    const name = webhook.name ?? '';
    const response = await this.#invoke(webhook, attributes, true);
    if (response === undefined) {
      outcome?.add([], { [`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`]: name });
      return 'skipped';
    }
    this.#passOn(webhook, response, outcome);
    if (response.allowed !== true) throw denial(name, response.status);
    if (response.patch === undefined || response.patch === null || response.patch === '') return undefined;
    if (attributes.operation === 'DELETE' || attributes.operation === 'CONNECT' || attributes.object === undefined) {
      throw internalError(`admission webhook "${name}" attempted to modify the object, which is not supported for this operation`);
    }
    let operations: unknown;
    const text = Buffer.from(String(response.patch), 'base64').toString('utf8');
    try {
      operations = JSON.parse(text);
    } catch {
      throw internalError(goJsonError(text));
    }
    if (!Array.isArray(operations)) throw internalError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    let patched: unknown;
    try {
      patched = applyJsonPatch(attributes.object, operations);
    } catch {
      throw internalError(`the JSON patch of admission webhook "${name}" does not apply to the object`);
    }
    if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) throw internalError('json: cannot unmarshal into an object');
    const mutated = patched as KubeObject;
    return JSON.stringify(mutated) === JSON.stringify(attributes.object) ? undefined : mutated;
  }

  /** passOn hands a response's warnings and audit annotations (`<webhook>/<key>`) to the request. */
  #passOn(webhook: Webhook, response: { readonly warnings?: unknown; readonly auditAnnotations?: unknown }, outcome: AdmissionOutcome | undefined): void {
    const warnings = Array.isArray(response.warnings) ? response.warnings.filter((warning): warning is string => typeof warning === 'string') : [];
    const annotations: Record<string, string> = {};
    if (response.auditAnnotations !== null && typeof response.auditAnnotations === 'object') {
      for (const [key, value] of Object.entries(response.auditAnnotations as Record<string, unknown>)) {
        if (typeof value === 'string') annotations[`${webhook.name ?? ''}/${key}`] = value;
      }
    }
    outcome?.add(warnings, annotations);
  }

  /** matches: rules and selectors, then matchConditions (an error under Fail is the 403 refusal). */
  async #matches(webhook: Webhook, attributes: AdmissionAttributes): Promise<boolean> {
    const resources: MatchResources = {
      resourceRules: webhook.rules ?? [],
      ...(webhook.matchPolicy === undefined ? {} : { matchPolicy: webhook.matchPolicy }),
      ...(webhook.namespaceSelector === undefined ? {} : { namespaceSelector: webhook.namespaceSelector }),
      ...(webhook.objectSelector === undefined ? {} : { objectSelector: webhook.objectSelector }),
    };
    if (!(await matches(resources, attributes, this.context, true))) return false;
    const conditions = conditionsOf(webhook);
    if (conditions.length === 0) return true;
    const decide = await this.context.authorizer();
    const activation = new Activation(
      { object: attributes.object ?? null, oldObject: attributes.oldObject ?? null, request: requestValue(attributes) },
      { authorizer: authorizerValue(attributes, decide) },
      new Map(),
      new Budget(MATCH_CONDITIONS_COST_BUDGET),
    );
    const errors: string[] = [];
    for (const condition of conditions) {
      const result = activation.evaluate(condition.compiled);
      if ('error' in result) errors.push(`expression '${condition.compiled.text}' resulted in error: ${result.error}`);
      else if (result.value !== true) return false;
    }
    if (errors.length === 0) return true;
    if (webhook.failurePolicy === 'Ignore') return false;
    const distinct = [...new Set(errors)];
    throw plainForbidden(attributes, distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`);
  }

  /**
   * invoke calls a matched webhook: its verified response, or undefined when the call failed and
   * the webhook fails open; a failure under Fail throws the 500, a dry run it cannot take the 400.
   */
  async #invoke(webhook: Webhook, attributes: AdmissionAttributes, mutating: boolean): Promise<ReturnType<typeof verifyResponse> | undefined> {
    const name = webhook.name ?? '';
    if (attributes.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
      throw new StatusError(400, 'BadRequest', `admission webhook "${name}" does not support dry run`);
    }
    try {
      return await this.#call(webhook, attributes, mutating);
    } catch (error) {
      if (!(error instanceof CallFailure)) throw error;
      if (webhook.failurePolicy === 'Ignore') return undefined;
      throw failedCalling(name, error.message);
    }
  }

  async #call(webhook: Webhook, attributes: AdmissionAttributes, mutating: boolean): Promise<ReturnType<typeof verifyResponse>> {
    const versions = webhook.admissionReviewVersions ?? [];
    if (!versions.includes('v1') && !versions.includes('v1beta1')) {
      throw new CallFailure('could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
    }
    let target: Awaited<ReturnType<typeof resolveTarget>>;
    try {
      target = await resolveTarget(this.store, webhook.clientConfig ?? {});
    } catch (error) {
      if (error instanceof ResolveError) throw new CallFailure(`could not get REST client: ${error.message}`);
      throw error;
    }
    const { uid, body } = reviewRequest(attributes);
    const timeout = Math.min(30, Math.max(1, Math.ceil(webhook.timeoutSeconds ?? 10)));
    let answer: Awaited<ReturnType<typeof callWebhook>>;
    try {
      answer = await callWebhook(this.agents, target, body, timeout);
    } catch (error) {
      if (error instanceof WebhookCallError) throw new CallFailure(`failed to call webhook: ${error.message}`);
      throw error;
    }
    if (answer.status < 200 || answer.status > 299) throw new CallFailure(`failed to call webhook: ${statusText(answer.status, answer.body)}`);
    let parsed: unknown;
    const text = answer.body.toString('utf8');
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CallFailure(`failed to call webhook: ${goJsonError(text)}`);
    }
    try {
      return verifyResponse(parsed, uid, mutating);
    } catch (error) {
      if (error instanceof InvalidResponse) throw new CallFailure(`received invalid webhook response: ${error.message}`);
      throw error;
    }
  }
}
