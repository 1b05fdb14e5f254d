/**
 * The ValidatingAdmissionPolicy plugin (1.32 `admission/plugin/policy/validating`): every binding
 * whose policy exists and whose policy constraints and own matchResources match the request is
 * evaluated once per param (paramKind/paramRef: name, namespace, selector, parameterNotFoundAction),
 * matchConditions first, then the validations (with their variables, messages and reasons), then
 * the audit annotations; each failure is acted on as the binding's validationActions say — Deny
 * refuses (the first refusal is the answer), Warn becomes a `Warning`, Audit an audit annotation.
 * Configuration errors (params missing under Deny, an unresolvable paramKind) refuse under `Fail`
 * whatever the actions. Policies never see the policy and binding kinds themselves.
 */
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import type { StatusError } from '../../apimachinery/status.ts';
import type { AnyView } from '../../apimachinery/strategy.ts';
import type { UserInfo } from '../../cluster-auth.ts';
import type { AuthzDecision, AuthzRequest } from '../../crd/cel/library-authz.ts';
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES } from '../../crd/cel/cost-limits.ts';
import { selectorMatches } from '../../resources/label-selector-object.ts';
import { admissionForbidden } from '../admission-errors.ts';
import { authorizerValue, requestValue } from '../request-value.ts';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes.ts';
import { type MatchContext, type MatchResources, matches } from '../matching.ts';
import type { StoredConfigurations } from '../stored-configurations.ts';
import { type CompiledPolicy, compilePolicy } from './compiled-policy.ts';
import { Activation, Budget, MATCH_CONDITIONS_COST_BUDGET, RUNTIME_CEL_COST_BUDGET } from './expressions.ts';

/** PolicyContext is what evaluation reads besides the request: namespaces, params, the authorizer. */
export interface PolicyContext extends MatchContext {
  namespaceObject(namespace: string): Promise<KubeObject | undefined>;
  /** paramView finds the served view of a paramKind (undefined: not resolvable). */
  paramView(apiVersion: string, kind: string): AnyView | undefined;
  /** params reads param objects of a view in a namespace (undefined for cluster-scoped): one by name, or every one a selector selects. */
  params(view: AnyView, namespace: string | undefined, ref: { readonly name?: string; readonly selector?: Record<string, unknown> }): Promise<KubeObject[]>;
  /** authorizer readies RBAC and answers checks synchronously for one user's name and groups. */
  authorizer(): Promise<(user: UserInfo, request: AuthzRequest) => AuthzDecision>;
}

interface BindingSpec {
  readonly policyName?: string;
  readonly paramRef?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly selector?: Record<string, unknown>;
    readonly parameterNotFoundAction?: string;
  };
  readonly matchResources?: MatchResources;
  readonly validationActions?: readonly string[];
}

/** PolicyDecision is one failure: its message and reason, and where it came from. */
interface PolicyDecision {
  readonly message: string;
  readonly reason: string | undefined;
  readonly expressionIndex?: number;
  /** A configuration error denies under Fail whatever the validationActions. */
  readonly configuration?: boolean;
}

const EXEMPT = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

/** UNREADY answers checks of a policy that reads no `authorizer` (never asked). */
const UNREADY = (): AuthzDecision => ({ allowed: false, reason: '', error: 'the authorizer is not available' });

const AUDIT_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';

/** ValidatingPolicies evaluates the stored policies and bindings. */
export class ValidatingPolicies {
  constructor(
    readonly configurations: StoredConfigurations,
    readonly context: PolicyContext,
  ) {}

  /** active: some binding exists. */
  active(): boolean {
    return this.configurations.bindings.size > 0;
  }

  /** validate evaluates every matching binding; throws the first Deny. */
  async validate(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined): Promise<void> {
    if (attributes.view.group === 'admissionregistration.k8s.io' && EXEMPT.has(attributes.view.resource)) return;
    const warnings: string[] = [];
    const annotations = new Map<string, string[]>();
    const auditFailures: Record<string, unknown>[] = [];
    const { policies, bindings } = this.configurations;
    let denial: StatusError | undefined;
    let decide: ((user: UserInfo, request: AuthzRequest) => AuthzDecision) | undefined;
    for (const binding of bindings.values()) {
      const spec = ((binding as { spec?: BindingSpec }).spec ?? {}) as BindingSpec;
      const policyObject = policies.get(spec.policyName ?? '');
      if (policyObject === undefined) continue;
      const policy = compilePolicy(policyObject);
      if (!(await matches(policy.spec.matchConstraints, attributes, this.context, true))) continue;
      if (!(await matches(spec.matchResources, attributes, this.context, false))) continue;
      const bindingName = binding.metadata.name ?? '';
      const actions = spec.validationActions ?? [];
      const prefix = `ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}' denied request: `;
      const deny = (decision: PolicyDecision): void => {
        denial ??= admissionForbidden(attributes, `${prefix}${decision.message}`, decision.reason);
      };
      if (policy.failurePolicy !== 'Fail' && policy.failurePolicy !== 'Ignore') {
        deny({ message: `unrecognized failure policy: '${policy.failurePolicy}'`, reason: undefined });
        continue;
      }
      const failClosed = policy.failurePolicy === 'Fail';
      const collected = await this.#params(policy, spec, attributes);
      if ('policyError' in collected) {
        if (failClosed)
          denial ??= admissionForbidden(
            attributes,
            `ValidatingAdmissionPolicy '${policy.name}' denied request: failed to configure policy: ${collected.policyError}`,
            undefined,
          );
        continue;
      }
      if ('bindingError' in collected) {
        if (failClosed) deny({ message: `failed to configure binding: ${collected.bindingError}`, reason: undefined });
        continue;
      }
      if (policy.usesAuthorizer) decide ??= await this.context.authorizer();
      const namespaceObject = policy.usesNamespaceObject ? await this.#namespaceObject(attributes) : null;
      for (const param of collected.params) {
        const outcome = this.#evaluate(policy, attributes, param, namespaceObject, decide ?? UNREADY, failClosed);
        for (const [key, value] of outcome.annotations) {
          const values = annotations.get(key) ?? [];
          if (!values.includes(value)) values.push(value);
          annotations.set(key, values);
        }
        for (const decision of outcome.decisions) {
          if (decision.configuration === true) {
            deny(decision);
            continue;
          }
          if (actions.includes('Deny')) deny(decision);
          if (actions.includes('Warn'))
            warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${decision.message}`);
          if (actions.includes('Audit'))
            auditFailures.push({
              message: decision.message,
              policy: policy.name,
              binding: bindingName,
              expressionIndex: decision.expressionIndex ?? 0,
              validationActions: actions,
            });
        }
      }
    }
    const auditAnnotations: Record<string, string> = {};
    for (const [key, values] of annotations) auditAnnotations[key] = values.join(', ');
    if (auditFailures.length > 0) auditAnnotations[AUDIT_FAILURE_KEY] = JSON.stringify(auditFailures);
    // Warnings and annotations count for a refused request too.
    outcome?.add(warnings, auditAnnotations);
    if (denial !== undefined) throw denial;
  }

  /** params collects a binding's params: [null] without paramKind or paramRef, else the objects its paramRef finds. */
  async #params(
    policy: CompiledPolicy,
    spec: BindingSpec,
    attributes: AdmissionAttributes,
  ): Promise<{ params: (KubeObject | null)[] } | { policyError: string } | { bindingError: string }> {
    const paramKind = policy.spec.paramKind;
    if (paramKind === undefined || paramKind === null) return { params: [null] };
    const ref = spec.paramRef;
    if (ref === undefined || ref === null) return { params: [null] };
    const apiVersion = paramKind.apiVersion ?? '';
    const kind = paramKind.kind ?? '';
    const view = this.context.paramView(apiVersion, kind);
    if (view === undefined) {
      const slash = apiVersion.lastIndexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      return { policyError: `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${kind}'` };
    }
    let namespace: string | undefined;
    if (view.strategy.namespaced) {
      namespace = ref.namespace ?? '';
      if (namespace === '') namespace = attributes.namespace;
      if (namespace === '' || (attributes.view.group === '' && attributes.view.resource === 'namespaces' && (ref.namespace ?? '') === '')) {
        return { bindingError: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
      }
    } else if ((ref.namespace ?? '') !== '') {
      return { bindingError: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
    }
    const found = await this.context.params(view, namespace, {
      ...(ref.name === undefined ? {} : { name: ref.name }),
      ...(ref.selector === undefined ? {} : { selector: ref.selector }),
    });
    if (found.length > 0) return { params: found };
    if (ref.parameterNotFoundAction === 'Allow') return { params: [] };
    return { bindingError: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  }

  /** namespaceObject is the request namespace's object as policies see it; null for cluster-scoped requests (Namespaces included). */
  async #namespaceObject(attributes: AdmissionAttributes): Promise<Record<string, unknown> | null> {
    const isNamespace = attributes.view.group === '' && attributes.view.resource === 'namespaces';
    if (attributes.namespace === '' || isNamespace) return null;
    const namespace = await this.context.namespaceObject(attributes.namespace);
    if (namespace === undefined) return null;
    const meta = namespace.metadata;
    const status = (namespace as { status?: { phase?: string; conditions?: unknown } }).status;
    return {
      metadata: {
        name: meta.name,
        generateName: meta.generateName,
        namespace: meta.namespace,
        labels: meta.labels,
        annotations: meta.annotations,
        uid: meta.uid,
        creationTimestamp: meta.creationTimestamp,
        deletionTimestamp: meta.deletionTimestamp,
        deletionGracePeriodSeconds: meta.deletionGracePeriodSeconds,
        generation: meta.generation,
        resourceVersion: meta.resourceVersion,
        finalizers: meta.finalizers,
      },
      spec: { finalizers: (namespace as { spec?: { finalizers?: unknown } }).spec?.finalizers },
      status: { phase: status?.phase, conditions: status?.conditions },
    };
  }

  /** evaluate runs one policy for one param: matchConditions, validations, audit annotations. */
  #evaluate(
    policy: CompiledPolicy,
    attributes: AdmissionAttributes,
    param: KubeObject | null,
    namespaceObject: Record<string, unknown> | null,
    decide: (user: UserInfo, request: AuthzRequest) => AuthzDecision,
    failClosed: boolean,
  ): { decisions: PolicyDecision[]; annotations: [string, string][] } {
    const request = requestValue(attributes);
    const authorizer = authorizerValue(attributes, decide);
    const globals = {
      object: attributes.object ?? null,
      oldObject: attributes.oldObject ?? null,
      request,
      params: param,
      namespaceObject,
    };
    const native = { authorizer };
    // matchConditions: no namespaceObject, no variables; any false skips; errors without a false follow failurePolicy.
    if (policy.matchConditions.length > 0) {
      const conditions = new Activation({ ...globals, namespaceObject: null }, native, new Map(), new Budget(MATCH_CONDITIONS_COST_BUDGET));
      const errors: string[] = [];
      for (const condition of policy.matchConditions) {
        const outcome = conditions.evaluate(condition.compiled);
        if ('error' in outcome) errors.push(`expression '${condition.compiled.text}' resulted in error: ${outcome.error}`);
        else if (outcome.value !== true) return { decisions: [], annotations: [] };
      }
      if (errors.length > 0) {
        if (!failClosed) return { decisions: [], annotations: [] };
        const distinct = [...new Set(errors)];
        return { decisions: [{ message: distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`, reason: undefined }], annotations: [] };
      }
    }
    const activation = new Activation(globals, native, policy.variables, new Budget(RUNTIME_CEL_COST_BUDGET));
    const decisions: PolicyDecision[] = [];
    for (const validation of policy.validations) {
      const outcome = activation.evaluate(validation.expression);
      if ('error' in outcome) {
        if (outcome.budget === true) {
          if (failClosed) decisions.push({ message: outcome.error, reason: undefined, expressionIndex: validation.index });
          break;
        }
        if (failClosed)
          decisions.push({
            message: `expression '${validation.expression.text}' resulted in error: ${outcome.error}`,
            reason: undefined,
            expressionIndex: validation.index,
          });
        continue;
      }
      if (outcome.value === true) continue;
      decisions.push({ message: failureMessage(validation, activation), reason: validation.reason ?? 'Invalid', expressionIndex: validation.index });
    }
    const annotations: [string, string][] = [];
    const audit = new Activation(globals, native, policy.variables, new Budget(RUNTIME_CEL_COST_BUDGET));
    for (const annotation of policy.auditAnnotations) {
      const outcome = audit.evaluate(annotation.compiled);
      if ('error' in outcome) {
        if (failClosed)
          decisions.push({
            message: `expression '${annotation.compiled.text}' resulted in error: ${outcome.error}`,
            reason: undefined,
            configuration: true,
          });
        continue;
      }
      if (outcome.value === null || outcome.value === undefined || outcome.value === '') continue;
      if (typeof outcome.value !== 'string') {
        if (failClosed)
          decisions.push({
            message: `valueExpression '${annotation.compiled.text}' resulted in unsupported return type: ${typeof outcome.value}. Return type must be either string or null.`,
            reason: undefined,
            configuration: true,
          });
        continue;
      }
      annotations.push([`${policy.name}/${annotation.key}`, outcome.value.trim().slice(0, 10 * 1024)]);
    }
    return { decisions, annotations };
  }
}

/** failureMessage is the first usable of the messageExpression's result, the message, `failed expression: <expr>`. */
function failureMessage(validation: CompiledPolicy['validations'][number], activation: Activation): string {
  if (validation.messageExpression !== undefined) {
    const outcome = activation.evaluate(validation.messageExpression);
    if ('error' in outcome) {
      if (outcome.budget === true) return `failed messageExpression: ${outcome.error}`;
    } else if (typeof outcome.value === 'string') {
      const text = outcome.value.trim();
      if (text !== '' && Buffer.byteLength(text) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !text.includes('\n')) return text;
    }
  }
  const message = validation.message?.trim() ?? '';
  if (message !== '') return message;
  return `failed expression: ${validation.expression.text.trim()}`;
}

/** selectParams filters listed param objects by a label selector (an empty one selects all). */
export function selectParams(objects: readonly KubeObject[], selector: Record<string, unknown> | undefined): KubeObject[] {
  if (selector === undefined) return [...objects];
  return objects.filter((object) => selectorMatches(selector, object.metadata.labels ?? {}));
}
