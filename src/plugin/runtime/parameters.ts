import { PluginParameterError } from './errors.ts';

/** ParameterSpec describes one accepted `key=value` parameter. */
export interface ParameterSpec {
  /** values are the accepted values; the first is not special, see `default`. */
  readonly values: readonly string[];
  readonly default: string;
  /** bare is the value a bare `key` (no `=`) stands for; bare keys are rejected without it. */
  readonly bare?: string;
}

/** ParameterSpecs maps each accepted key to its spec. */
export type ParameterSpecs = Readonly<Record<string, ParameterSpec>>;

/** ParsedParameters holds one value per declared key. */
export type ParsedParameters<S extends ParameterSpecs> = { readonly [K in keyof S]: string };

/**
 * parseParameters parses protoc's comma-joined parameter strictly: unknown keys, repeated keys
 * and values outside the declared set are errors, because a silently ignored typo (ts-proto's
 * behaviour) produces code the user did not ask for.
 */
export function parseParameters<S extends ParameterSpecs>(raw: string, specs: S): ParsedParameters<S> {
  const result: Record<string, string> = {};
  const seen = new Set<string>();
  const known = Object.keys(specs).sort();
  for (const option of raw.split(',')) {
    if (option === '') continue;
    const eq = option.indexOf('=');
    const key = eq < 0 ? option : option.slice(0, eq);
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (spec === undefined) {
      throw new PluginParameterError(option, `unknown parameter; known parameters are ${known.join(', ')}`);
    }
    if (seen.has(key)) throw new PluginParameterError(option, `"${key}" is given more than once`);
    seen.add(key);
    let value: string;
    if (eq < 0) {
      if (spec.bare === undefined) {
        throw new PluginParameterError(option, `expected ${key}=<value>, one of ${spec.values.join(', ')}`);
      }
      value = spec.bare;
    } else {
      value = option.slice(eq + 1);
    }
    if (!spec.values.includes(value)) {
      throw new PluginParameterError(option, `expected one of ${spec.values.join(', ')}`);
    }
    result[key] = value;
  }
  for (const key of known) {
    const spec = specs[key];
    if (spec !== undefined && !seen.has(key)) result[key] = spec.default;
  }
  return result as ParsedParameters<S>;
}
