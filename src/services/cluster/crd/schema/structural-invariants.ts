/**
 * Structural-schema rules (apiextensions `apiserver/schema` ValidateStructural): every specified
 * field has a type, arrays have items, `allOf`/`anyOf`/`oneOf`/`not` only add value validations
 * (no types, defaults, descriptions or extensions in them, with the two int-or-string
 * exceptions), every property a junctor constrains also exists outside it, root metadata only
 * restricts name and generateName, embedded resources are objects, and patterns compile.
 * Errors come sorted by their text, as the apiserver sorts them.
 */
import { type FieldError, fieldErrorText, forbidden, invalid, required } from '../../apimachinery/field-errors.ts';
import { ownValue } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { compilePattern } from './regex.ts';

type Level = 'root' | 'item' | 'field';

const child = (path: string, name: string): string => `${path}.${name}`;
const key = (path: string, name: string): string => `${path}[${name}]`;

const singleSchema = (items: JSONSchemaProps['items']): JSONSchemaProps | undefined => (items === undefined || Array.isArray(items) ? undefined : items);
const hasEntries = (record: object | undefined): boolean => record !== undefined && Object.keys(record).length > 0;

/** Only `type` set: the shape of each branch of the int-or-string `anyOf`. */
function onlyType(node: JSONSchemaProps, type: string): boolean {
  return Object.entries(node).every(([name, value]) => (name === 'type' ? value === type : isZero(value)));
}

/** isZero is true for what Go decodes to a zero value (so DeepEqual ignores it). */
function isZero(value: unknown): boolean {
  return value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);
}

function isIntOrStringAnyOf(anyOf: readonly JSONSchemaProps[] | undefined): boolean {
  return anyOf !== undefined && anyOf.length === 2 && onlyType(anyOf[0]!, 'integer') && onlyType(anyOf[1]!, 'string');
}

class InvariantChecker {
  readonly errors: FieldError[] = [];

  node(s: JSONSchemaProps, level: Level, path: string): void {
    const items = singleSchema(s.items);
    if (s.type === 'array' && s.items === undefined) this.errors.push(required(child(path, 'items'), 'must be specified'));
    if (items !== undefined) this.node(items, 'item', child(path, 'items'));
    for (const [name, property] of Object.entries(s.properties ?? {})) this.node(property, 'field', key(child(path, 'properties'), name));
    if (s.additionalProperties !== undefined) {
      if (level === 'root') this.errors.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
      if (typeof s.additionalProperties === 'object') this.node(s.additionalProperties, 'field', child(path, 'additionalProperties'));
    }
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    if (intOrString && preserve)
      this.errors.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
    if (intOrString && embedded)
      this.errors.push(invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
    const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
    const skipFirstAllOfAnyOf = s.allOf !== undefined && s.allOf.length >= 1 && isIntOrStringAnyOf(s.allOf[0]!.anyOf);
    this.valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, level, path);
    const type = s.type ?? '';
    if (embedded && type !== 'object') {
      const at = child(path, 'type');
      const detail = 'must be object if x-kubernetes-embedded-resource is true';
      this.errors.push(type === '' ? required(at, detail) : invalid(at, type, detail));
    } else if (type === '' && !intOrString && !preserve) {
      const detail = {
        root: 'must not be empty at the root',
        item: 'must not be empty for specified array items',
        field: 'must not be empty for specified object fields',
      }[level];
      this.errors.push(required(child(path, 'type'), detail));
    }
    if (embedded && s.additionalProperties !== undefined) {
      this.errors.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
    }
    if (level === 'root' && type !== '' && type !== 'object') this.errors.push(invalid(child(path, 'type'), type, 'must be object at the root'));
    const checkMetadata = level === 'root' || embedded;
    const properties = s.properties ?? {};
    for (const name of ['kind', 'apiVersion']) {
      const property = ownValue(properties, name);
      if (property !== undefined && checkMetadata && property.type !== 'string') {
        this.errors.push(invalid(child(key(child(path, 'properties'), name), 'type'), property.type ?? '', 'must be string'));
      }
    }
    const metadata = ownValue(properties, 'metadata');
    if (metadata !== undefined) this.metadata(metadata, checkMetadata, level, key(child(path, 'properties'), 'metadata'));
    if (embedded && !preserve && !hasEntries(s.properties)) {
      this.errors.push(
        required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
      );
    }
  }

  private metadata(s: JSONSchemaProps, checkMetadata: boolean, level: Level, path: string): void {
    if (checkMetadata && s.type !== 'object') this.errors.push(invalid(child(path, 'type'), s.type ?? '', 'must be object'));
    if (level !== 'root') return;
    // Only `type`, `default` and properties restricting name and generateName may be said of the root's metadata.
    const names = Object.keys(s.properties ?? {});
    const onlyNames = names.length > 0 && names.every((name) => name === 'name' || name === 'generateName');
    const rest = Object.entries(s).filter(
      ([name, value]) => name !== 'type' && name !== 'default' && !(name === 'properties' && (onlyNames || names.length === 0)) && !isZero(value),
    );
    if (rest.length > 0) this.errors.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }

  private valueValidation(v: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, level: Level, path: string): void {
    if (!skipAnyOf)
      (v.anyOf ?? []).forEach((nested, index) => {
        this.nested(nested, false, level, `${child(path, 'anyOf')}[${index}]`);
      });
    (v.allOf ?? []).forEach((nested, index) => {
      this.nested(nested, skipFirstAllOfAnyOf && index === 0, level, `${child(path, 'allOf')}[${index}]`);
    });
    (v.oneOf ?? []).forEach((nested, index) => {
      this.nested(nested, false, level, `${child(path, 'oneOf')}[${index}]`);
    });
    if (v.not !== undefined) this.nested(v.not, false, level, child(path, 'not'));
    if (v.pattern !== undefined && v.pattern !== '') {
      const compiled = compilePattern(v.pattern);
      if (!compiled.ok) this.errors.push(invalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${compiled.error}`));
    }
  }

  private nested(v: JSONSchemaProps, skipAnyOf: boolean, level: Level, path: string): void {
    this.valueValidation(v, skipAnyOf, false, level, path);
    const items = singleSchema(v.items);
    if (items !== undefined) this.nested(items, false, level, child(path, 'items'));
    for (const [name, property] of Object.entries(v.properties ?? {})) this.nested(property, false, 'field', key(child(path, 'properties'), name));
    const forbid = (name: string, detail: string): void => {
      this.errors.push(forbidden(child(path, name), detail));
    };
    if (v.type !== undefined && v.type !== '') forbid('type', 'must be empty to be structural');
    if (typeof v.additionalProperties === 'object' || v.additionalProperties === true) forbid('additionalProperties', 'must be undefined to be structural');
    if (v.default !== undefined) forbid('default', 'must be undefined to be structural');
    if (v.title !== undefined && v.title !== '') forbid('title', 'must be empty to be structural');
    if (v.description !== undefined && v.description !== '') forbid('description', 'must be empty to be structural');
    if (v.nullable === true) forbid('nullable', 'must be false to be structural');
    if (v['x-kubernetes-preserve-unknown-fields'] === true) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
    if (v['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
    if (v['x-kubernetes-int-or-string'] === true) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
    if ((v['x-kubernetes-list-map-keys'] ?? []).length > 0) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
    if (v['x-kubernetes-list-type'] !== undefined) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
    if (v['x-kubernetes-map-type'] !== undefined) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
    if ((v['x-kubernetes-validations'] ?? []).length > 0) forbid('x-kubernetes-validations', 'must be empty to be structural');
    if (v.properties !== undefined && Object.hasOwn(v.properties, 'metadata')) {
      this.errors.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
    }
  }
}

/** Every property, items or junctor a value validation names must exist in the structural part of the schema. */
class CompletenessChecker {
  readonly errors: FieldError[] = [];

  valueValidation(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): void {
    if (s === undefined) {
      this.errors.push(required(sPath, `because it is defined in ${vPath}`));
      return;
    }
    if (v.not !== undefined) this.nested(v.not, s, sPath, child(vPath, 'not'));
    (v.allOf ?? []).forEach((nested, index) => {
      this.nested(nested, s, sPath, `${child(vPath, 'allOf')}[${index}]`);
    });
    (v.anyOf ?? []).forEach((nested, index) => {
      this.nested(nested, s, sPath, `${child(vPath, 'anyOf')}[${index}]`);
    });
    (v.oneOf ?? []).forEach((nested, index) => {
      this.nested(nested, s, sPath, `${child(vPath, 'oneOf')}[${index}]`);
    });
  }

  private nested(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): void {
    if (s === undefined) {
      this.errors.push(required(sPath, `because it is defined in ${vPath}`));
      return;
    }
    this.valueValidation(v, s, sPath, vPath);
    const items = singleSchema(v.items);
    if (items !== undefined) this.nested(items, singleSchema(s.items), child(sPath, 'items'), child(vPath, 'items'));
    for (const [name, property] of Object.entries(v.properties ?? {})) {
      const structural = ownValue(s.properties ?? {}, name);
      const sProperty = key(child(sPath, 'properties'), name);
      const vProperty = key(child(vPath, 'properties'), name);
      if (structural === undefined) this.errors.push(required(sProperty, `because it is defined in ${vProperty}`));
      else this.nested(property, structural, sProperty, vProperty);
    }
  }
}

/** validateStructuralRules runs ValidateStructural on a schema that converted to a structural one. */
export function validateStructuralRules(schema: JSONSchemaProps, path: string): FieldError[] {
  const invariants = new InvariantChecker();
  invariants.node(schema, 'root', path);
  const completeness = new CompletenessChecker();
  completeness.valueValidation(schema, schema, path, path);
  const errors = [...invariants.errors, ...completeness.errors];
  // Go sorts by the error's text; compare as bytes, as Go's string order does.
  const texts = new Map(errors.map((error) => [error, Buffer.from(fieldErrorText(error))]));
  return errors.sort((a, b) => Buffer.compare(texts.get(a)!, texts.get(b)!));
}

/** structuralConversionError is NewStructural's refusal of a schema (`OpenAPIV3Schema 'id' is not supported`), or undefined. */
export function structuralConversionError(schema: JSONSchemaProps): string | undefined {
  const unsupported = (s: JSONSchemaProps): string | undefined => {
    if (s.id !== undefined && s.id !== '') return "OpenAPIV3Schema 'id' is not supported";
    if (s.$schema !== undefined && s.$schema !== '') return "OpenAPIV3Schema 'schema' is not supported";
    if (s.$ref !== undefined && s.$ref !== '') return "OpenAPIV3Schema '$ref' is not supported";
    if (hasEntries(s.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
    if (hasEntries(s.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
    if (s.additionalItems !== undefined) return "OpenAPIV3Schema 'additionalItems' is not supported";
    if (hasEntries(s.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
    return undefined;
  };
  const walk = (s: JSONSchemaProps): string | undefined => {
    const problem = unsupported(s);
    if (problem !== undefined) return problem;
    if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
    if (Array.isArray(s.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    const children = [
      ...(s.items === undefined ? [] : [s.items]),
      ...Object.values(s.properties ?? {}),
      ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : []),
      ...(s.allOf ?? []),
      ...(s.anyOf ?? []),
      ...(s.oneOf ?? []),
      ...(s.not === undefined ? [] : [s.not]),
    ];
    for (const node of children) {
      const found = walk(node);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(schema);
}
