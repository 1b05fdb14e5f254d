/**
 * Go's encoding/json over a stored object: the apiserver decodes what it stores into Go structs
 * and encodes them again for every answer, so a member the client never sent is still written
 * when Go always writes it (a struct, `omitempty` or not: `"status":{"loadBalancer":{}}`; a field
 * without `omitempty`: `"rules":null`, `"reportingComponent":""`, a zero Time as `null`), and an
 * `omitempty` member holding an empty value (`""`, `0`, `false`, `[]`, `{}`) is not. The table
 * saying which is which per struct comes from the Go types (builtin/go-json-fields.ts); this is
 * the walk, for any table. Objects whose root type the table lacks (custom resources, which the
 * apiserver keeps unstructured) are written as stored.
 */
import { setOwn } from '../../../core/own.ts';

/** GoStructMember is one table entry: JSON name, mode (`o`, `p` or the zero value's JSON), and the struct it holds (`s:`, `l:`, `m:` + component). */
export type GoStructMember = readonly [name: string, mode: string, child?: string];

/** GoStructTable is the members of each struct by OpenAPI component name. */
export type GoStructTable = Readonly<Record<string, readonly GoStructMember[]>>;

interface MemberPlan {
  readonly omitEmpty: boolean;
  readonly container: 's' | 'l' | 'm' | undefined;
  readonly child: string | undefined;
}

interface StructPlan {
  /** Members the walk acts on when present (dropped when empty, or holding structs). */
  readonly members: ReadonlyMap<string, MemberPlan>;
  /** Members written when unset, with their zero value (a struct's is built by its own plan). */
  readonly always: readonly { readonly name: string; readonly zero: unknown; readonly struct: string | undefined }[];
}

/** GoStructEncoder writes objects as encoding/json writes the Go structs of a table. */
export class GoStructEncoder {
  readonly #plans = new Map<string, StructPlan | null>();

  constructor(readonly table: () => GoStructTable) {}

  /** knows tells whether objects of a component are Go structs here. */
  knows(component: string): boolean {
    return this.#plan(component) !== undefined;
  }

  /**
   * encode returns `value` as Go writes an object of `component`: the same object when nothing
   * changes, else a copy along the changed paths (the stored object is never touched).
   */
  encode<T extends Record<string, unknown>>(component: string, value: T): T {
    const plan = this.#plan(component);
    return plan === undefined ? value : (this.#struct(value, plan) as T);
  }

  #plan(component: string): StructPlan | undefined {
    const known = this.#plans.get(component);
    if (known !== undefined) return known ?? undefined;
    const members = this.table()[component];
    if (members === undefined) {
      this.#plans.set(component, null);
      return undefined;
    }
    const acting = new Map<string, MemberPlan>();
    const always: { name: string; zero: unknown; struct: string | undefined }[] = [];
    for (const [name, mode, child] of members) {
      const container = child === undefined ? undefined : (child[0] as 's' | 'l' | 'm');
      const target = child?.slice(2);
      if (mode === 'o' || target !== undefined) acting.set(name, { omitEmpty: mode === 'o', container, child: target });
      if (mode === '{}') always.push({ name, zero: undefined, struct: target ?? '' });
      else if (mode !== 'o' && mode !== 'p') always.push({ name, zero: JSON.parse(mode) as unknown, struct: undefined });
    }
    const plan: StructPlan = { members: acting, always };
    this.#plans.set(component, plan);
    return plan;
  }

  #struct(value: Record<string, unknown>, plan: StructPlan): Record<string, unknown> {
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const member = plan.members.get(key);
      if (member === undefined) continue;
      const item = value[key];
      if (member.omitEmpty && isEmpty(item)) {
        out ??= { ...value };
        delete out[key];
        continue;
      }
      if (member.child === undefined || item === null || typeof item !== 'object') continue;
      const encoded = this.#child(item, member);
      if (encoded !== item) {
        out ??= { ...value };
        out[key] = encoded;
      }
    }
    for (const member of plan.always) {
      const item = value[member.name];
      if (item !== undefined && item !== null) continue;
      if (item === null && member.struct === undefined) continue;
      out ??= { ...value };
      out[member.name] = member.struct === undefined ? member.zero : this.#zeroStruct(member.struct);
    }
    return out ?? value;
  }

  #zeroStruct(component: string): Record<string, unknown> {
    const plan = component === '' ? undefined : this.#plan(component);
    return plan === undefined ? {} : this.#struct({}, plan);
  }

  #child(item: object, member: MemberPlan): unknown {
    const plan = this.#plan(member.child!);
    if (plan === undefined) return item;
    if (member.container === 's') return Array.isArray(item) ? item : this.#struct(item as Record<string, unknown>, plan);
    if (member.container === 'l') {
      if (!Array.isArray(item)) return item;
      let out: unknown[] | undefined;
      for (let index = 0; index < item.length; index++) {
        const element: unknown = item[index];
        if (element === null || typeof element !== 'object' || Array.isArray(element)) continue;
        const encoded = this.#struct(element as Record<string, unknown>, plan);
        if (encoded !== element) {
          out ??= [...item];
          out[index] = encoded;
        }
      }
      return out ?? item;
    }
    if (Array.isArray(item)) return item;
    const map = item as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(map)) {
      const element = map[key];
      if (element === null || typeof element !== 'object' || Array.isArray(element)) continue;
      const encoded = this.#struct(element as Record<string, unknown>, plan);
      if (encoded !== element) {
        out ??= { ...map };
        // A map's keys are the client's: `__proto__` is a key like any other.
        setOwn(out, key, encoded);
      }
    }
    return out ?? item;
  }
}

/** isEmpty is encoding/json's isEmptyValue for what JSON holds: `false`, `0`, `""`, null, an empty list or map. */
function isEmpty(value: unknown): boolean {
  if (value === '' || value === 0 || value === false || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}
