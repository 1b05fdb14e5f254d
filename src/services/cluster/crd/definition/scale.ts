/**
 * The scale subresource of a custom resource (apiextensions-apiserver `registry/customresource`
 * `scaleFromCustomResource` / `scaleUpdater`): replica counts and the label selector read from
 * and written to the CRD's `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`
 * (simple `.a.b` paths), with the apiserver's error words.
 */
import { type FieldError, invalid } from '../../apimachinery/field-errors.ts';
import type { CustomResourceSubresourceScale } from '../types.ts';

/** ScaleValues are what an autoscaling/v1 Scale shows of a custom resource. */
export interface ScaleValues {
  readonly specReplicas: number;
  readonly statusReplicas: number;
  readonly selector: string;
}

/** ScaleError is a custom resource whose replica fields are not what the scale subresource can read or write. */
export class ScaleError extends Error {
  override readonly name = 'ScaleError';
}

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

/** dotted is the path as unstructured's accessor errors print it: `.spec.replicas`. */
function dotted(path: string): string {
  return `.${segments(path).join('.')}`;
}

/** nestedField reads a dotted path as unstructured.NestedFieldNoCopy does: absent when a key is missing or a step is null, an error when a step is not a map. */
function nestedField(object: unknown, path: string): { found: boolean; value: unknown } {
  const keys = segments(path);
  let current: unknown = object;
  for (const [index, key] of keys.entries()) {
    if (current === null || current === undefined) return { found: false, value: undefined };
    if (typeof current !== 'object' || Array.isArray(current)) {
      throw new ScaleError(
        `.${keys.slice(0, index + 1).join('.')} accessor error: ${goValueText(current)} is of the type ${goTypeOf(current)}, expected map[string]interface{}`,
      );
    }
    if (!Object.hasOwn(current, key)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}

/** nestedInt64 reads an integer as unstructured.NestedInt64 does (0 when absent), with its error texts. */
function nestedInt64(object: unknown, path: string): number {
  const { found, value } = nestedField(object, path);
  if (!found) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ScaleError(`${dotted(path)} accessor error: ${goValueText(value)} is of the type ${goTypeOf(value)}, expected int64`);
  }
  return value;
}

/** int32Replicas is an int64 count as autoscaling/v1 Scale holds it: Go's int32 conversion wraps. */
function int32Replicas(value: number): number {
  return Number(BigInt.asIntN(32, BigInt(value)));
}

/** MAX_INT32 is Go's math.MaxInt32, the largest replica count a custom resource may hold. */
const MAX_INT32 = 2147483647;

/** replicaErrors checks one replica path as the validator does: an int64 there, not negative, at most MaxInt32; errors at the path as the CRD spells it (`.spec.replicas`). */
function replicaErrors(path: string, object: unknown): FieldError[] {
  let replicas: number;
  try {
    replicas = nestedInt64(object, path);
  } catch (error) {
    if (error instanceof ScaleError) return [invalid(path, 0, error.message)];
    throw error;
  }
  if (replicas < 0) return [invalid(path, replicas, 'should be a non-negative integer')];
  if (replicas > MAX_INT32) return [invalid(path, replicas, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** validateScaleSpec is the custom resource validator's ValidateScaleSpec: the spec replicas path of an object written to the main resource. */
export function validateScaleSpec(scale: CustomResourceSubresourceScale, object: unknown): FieldError[] {
  return replicaErrors(scale.specReplicasPath, object);
}

/** validateScaleStatus is its ValidateScaleStatus: the status replicas path, and the label selector path holding a string. */
export function validateScaleStatus(scale: CustomResourceSubresourceScale, object: unknown): FieldError[] {
  const errors = replicaErrors(scale.statusReplicasPath, object);
  const selectorPath = scale.labelSelectorPath;
  if (selectorPath !== undefined) {
    try {
      const { found, value } = nestedField(object, selectorPath);
      if (found && typeof value !== 'string') {
        throw new ScaleError(`${dotted(selectorPath)} accessor error: ${goValueText(value)} is of the type ${goTypeOf(value)}, expected string`);
      }
    } catch (error) {
      if (!(error instanceof ScaleError)) throw error;
      errors.push(invalid(selectorPath, '', error.message));
    }
  }
  return errors;
}

/** scaleOf reads a custom resource's replica counts and selector (absent values are 0 and ""). */
export function scaleOf(scale: CustomResourceSubresourceScale, object: unknown): ScaleValues {
  const spec = int32Replicas(nestedInt64(object, scale.specReplicasPath));
  const status = int32Replicas(nestedInt64(object, scale.statusReplicasPath));
  let selector = '';
  if (scale.labelSelectorPath !== undefined && scale.labelSelectorPath !== '') {
    const { found, value } = nestedField(object, scale.labelSelectorPath);
    if (found) {
      if (typeof value !== 'string') {
        throw new ScaleError(`${dotted(scale.labelSelectorPath)} accessor error: ${goValueText(value)} is of the type ${goTypeOf(value)}, expected string`);
      }
      selector = value;
    }
  }
  return { specReplicas: spec, statusReplicas: status, selector };
}

/**
 * withSpecReplicas returns a copy of the object with `replicas` at the spec replicas path,
 * creating missing maps on the way (unstructured.SetNestedField); a step that exists but is
 * not a map is an error, as the apiserver's.
 */
export function withSpecReplicas(scale: CustomResourceSubresourceScale, object: Record<string, unknown>, replicas: number): Record<string, unknown> {
  const keys = segments(scale.specReplicasPath);
  const copy = structuredClone(object);
  let current: Record<string, unknown> = copy;
  for (const [index, key] of keys.entries()) {
    if (index === keys.length - 1) {
      setOwn(current, key, replicas);
      break;
    }
    const existing = Object.hasOwn(current, key) ? current[key] : undefined;
    if (existing === undefined || existing === null) {
      const created: Record<string, unknown> = {};
      setOwn(current, key, created);
      current = created;
    } else if (typeof existing === 'object' && !Array.isArray(existing)) {
      current = existing as Record<string, unknown>;
    } else {
      throw new ScaleError(`value cannot be set because ${goValueText(existing)} is not a map[string]interface{}`);
    }
  }
  return copy;
}

/** setOwn writes a key as an own data property, so `__proto__` stays an ordinary key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function goTypeOf(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}

function goValueText(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(goValueText).join(' ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goValueText((value as Record<string, unknown>)[key])}`)
      .join(' ')}]`;
  }
  return String(value);
}
