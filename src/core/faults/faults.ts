import type { FastifyRequest } from 'fastify';
import type { IdSource } from '../../lib/ids.ts';
import type { ServiceDefinition } from '../service.ts';
import { discoveryFaultMethods, type FaultMethods } from './methods.ts';
import { checkRuleShape, effectOf, FaultRuleError, globPattern, type FaultEffect, type FaultRule, type FaultRuleInput } from './rule.ts';

/** GENERIC_EFFECTS are the effects every family can apply; the others a family declares (ServiceDefinition.faultEffects). */
const GENERIC_EFFECTS: ReadonlySet<FaultEffect> = new Set(['status', 'latencyMs', 'reset']);

/** A rule as held: its matchers compiled, its counters. */
interface LiveRule {
  rule: FaultRule;
  readonly path: RegExp | undefined;
  /** Matches still to skip (`after`). */
  skip: number;
  /** Firings left (`times`), or Infinity. */
  left: number;
}

/** FaultRequest is what a rule is matched against. */
export interface FaultRequest {
  readonly method: string;
  /** The routed path, without the query. */
  readonly path: string;
  /** The routed URL, with the query (a cluster watch is a GET with `watch=true`). */
  readonly url: string;
  readonly request: FastifyRequest;
  /** principal names the caller by its bearer token (core's Authenticator), for families without their own principalOf. */
  principal(): string | undefined;
}

/**
 * Faults holds the fault rules of one server and decides, per request, whether one fires. With
 * no rule it costs a request one property read (`empty`); rules are matched in the order they
 * were added, and the first that fires wins. Random draws for `probability` come from the
 * injected id source, so a seeded server fires the same requests every run.
 */
export class Faults {
  readonly #families: ReadonlyMap<string, ServiceDefinition>;
  readonly #ids: IdSource;
  readonly #methods = new Map<string, FaultMethods | undefined>();
  #rules: LiveRule[] = [];
  #next = 1;

  constructor(families: readonly ServiceDefinition[], ids: IdSource) {
    this.#families = new Map(families.map((family) => [family.name, family]));
    this.#ids = ids;
  }

  /** empty is true when no rule is held (the per-request fast path). */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /**
   * add validates `input` and holds it as a new rule; it resolves to the rule with its id (and
   * the family its method belongs to). A rule that cannot be accepted is a FaultRuleError whose
   * message says why.
   */
  async add(input: FaultRuleInput | unknown): Promise<FaultRule> {
    const shape = checkRuleShape(input);
    let family = shape.family;
    if (family !== undefined && !this.#families.has(family))
      throw new FaultRuleError(`unknown family "${family}" (the families are ${[...this.#families.keys()].join(', ')})`);
    if (shape.method !== undefined) family = await this.#familyOfMethod(shape.method, family);
    const effect = effectOf(shape);
    if (!GENERIC_EFFECTS.has(effect)) {
      const owners = [...this.#families.values()].filter((candidate) => candidate.faultEffects?.includes(effect)).map((candidate) => candidate.name);
      if (family === undefined)
        throw new FaultRuleError(
          `"${effect}" needs a "family" or "method" of ${owners.length === 0 ? 'a family that applies it, and none does' : owners.join(' or ')}`,
        );
      if (!owners.includes(family))
        throw new FaultRuleError(`"${effect}" cannot be applied to family ${family}${owners.length === 0 ? '' : ` (only to ${owners.join(', ')})`}`);
    }
    // A principal is read the family's way (the cluster's user name), so its methods are loaded now.
    if (shape.principal !== undefined) for (const name of family === undefined ? this.#families.keys() : [family]) await this.#methodsOf(name);
    const rule: FaultRule = { id: String(this.#next++), ...shape, ...(family === undefined ? {} : { family }) };
    this.#rules.push({ rule, path: shape.path === undefined ? undefined : globPattern(shape.path), skip: shape.after ?? 0, left: shape.times ?? Infinity });
    return rule;
  }

  /** list returns the rules held, oldest first, each with the firings it has left in `times`. */
  list(): FaultRule[] {
    return this.#rules.map((live) => live.rule);
  }

  /** remove drops the rule `id`; false when there is none. */
  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((live) => live.rule.id !== id);
    return this.#rules.length !== before;
  }

  /** clear drops every rule. */
  clear(): void {
    this.#rules = [];
  }

  /**
   * take returns the rule that fires for a request of `family`, counting it (a rule with `times`
   * spent is removed), or undefined. Only a rule whose every stated matcher matches counts the
   * request as a match for `after`.
   */
  take(family: string, target: FaultRequest): FaultRule | undefined {
    let method: string | null = null;
    let principal: string | null | undefined = null;
    for (const live of this.#rules) {
      const rule = live.rule;
      if (rule.family !== undefined && rule.family !== family) continue;
      if (live.path !== undefined && !live.path.test(target.path)) continue;
      if (rule.method !== undefined) {
        method ??= this.#methods.get(family)?.methodOf(target.method, target.url, target.request) ?? '';
        if (method !== rule.method) continue;
      }
      if (rule.principal !== undefined) {
        if (principal === null) principal = this.#principalOf(family, target);
        if (principal !== rule.principal) continue;
      }
      if (live.skip > 0) {
        live.skip--;
        continue;
      }
      if (rule.probability !== undefined && rule.probability < 1 && this.#ids.bytes(4).readUInt32BE(0) / 2 ** 32 >= rule.probability) continue;
      if (live.left !== Infinity) {
        live.left--;
        if (live.left <= 0) this.remove(rule.id);
        else live.rule = { ...rule, times: live.left };
      }
      return rule;
    }
    return undefined;
  }

  /**
   * methods loads (once) how `family` names its requests, for whoever needs every request named
   * (a request journal): `methods(family)` then `.methodOf(method, url)` synchronously. Undefined
   * for a family without API methods (the discovery family) or an unknown one.
   */
  async methods(family: string): Promise<FaultMethods | undefined> {
    return this.#families.has(family) ? this.#methodsOf(family) : undefined;
  }

  /** methodOf names a request's API method by its routed URL, when its family's methods are loaded (a rule named the family, or `methods` was awaited). */
  methodOf(family: string, method: string, url: string): string | undefined {
    return this.#methods.get(family)?.methodOf(method, url);
  }

  #principalOf(family: string, target: FaultRequest): string | undefined {
    const own = this.#methods.get(family)?.principalOf;
    return own === undefined ? target.principal() : own(target.request);
  }

  async #familyOfMethod(method: string, family: string | undefined): Promise<string> {
    if (family !== undefined) {
      const methods = await this.#methodsOf(family);
      if (methods === undefined) throw new FaultRuleError(`family ${family} has no API methods to match; leave out "method"`);
      const problem = methods.problem(method);
      if (problem !== undefined) throw new FaultRuleError(`family ${family}: ${problem}`);
      return family;
    }
    for (const name of this.#families.keys()) {
      const methods = await this.#methodsOf(name);
      if (methods !== undefined && methods.problem(method) === undefined) return name;
    }
    throw new FaultRuleError(
      `unknown method id "${method}": no family serves it (Google methods are Discovery ids such as compute.instanceTemplates.insert; cluster ones a verb and resource such as "get clusterroles")`,
    );
  }

  async #methodsOf(family: string): Promise<FaultMethods | undefined> {
    if (this.#methods.has(family)) return this.#methods.get(family);
    const definition = this.#families.get(family)!;
    let methods: FaultMethods | undefined;
    if (definition.faultMethods !== undefined) methods = await definition.faultMethods();
    else if (definition.discovery !== undefined) methods = discoveryFaultMethods(await definition.discovery());
    this.#methods.set(family, methods);
    return methods;
  }
}
