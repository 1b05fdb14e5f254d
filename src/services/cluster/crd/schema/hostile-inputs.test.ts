import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { defaultCustomObject, pruneCustomObject, ssaSchemaSet, validateCustomObject, validateStructuralSchema } from './index.ts';

const PRESERVING: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
const texts = (schema: JSONSchemaProps, object: unknown): string[] => validateCustomObject(schema, object).map(fieldErrorText);

function nested(depth: number): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  let current = top;
  for (let level = 0; level < depth; level++) {
    const next: Record<string, unknown> = {};
    current.a = [next];
    current = next;
  }
  current.leaf = true;
  return top;
}

function depthOf(value: unknown): number {
  let depth = 0;
  let current = value as Record<string, unknown> | undefined;
  while (current !== undefined && Array.isArray(current.a)) {
    current = current.a[0] as Record<string, unknown>;
    depth++;
  }
  return depth;
}

describe('the CRD schema machinery on hostile input', () => {
  it('keeps, defaults and validates a preserved subtree nested 50,000 levels deep without exhausting the stack', () => {
    const object = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: nested(50_000) };
    const { object: pruned, unknownFields } = pruneCustomObject(PRESERVING, object);
    assert.deepEqual(unknownFields, []);
    assert.equal(depthOf(pruned.spec), 50_000);
    assert.equal(depthOf(defaultCustomObject(PRESERVING, pruned).spec), 50_000);
    assert.deepEqual(validateCustomObject(PRESERVING, pruned), []);
  });

  it('drops an unknown subtree nested 50,000 levels deep as one unknown field', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } };
    const { object, unknownFields } = pruneCustomObject(schema, { spec: { b: nested(50_000) } });
    assert.deepEqual(object, { spec: {} });
    assert.deepEqual(unknownFields, ['spec.b']);
  });

  it('treats __proto__, constructor and prototype as ordinary names in schemas and objects', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"spec":{"type":"object","required":["__proto__"],"properties":{"__proto__":{"type":"object","properties":{"x":{"type":"integer","default":1}},"default":{}},"constructor":{"type":"string","enum":["a"]}}}}}',
    ) as JSONSchemaProps;
    assert.deepEqual(validateStructuralSchema(schema, 'p', { statusSubresource: false, scaleSubresource: false }), []);
    assert.deepEqual(texts(schema, { spec: {} }), ['spec.__proto__: Required value']);
    assert.deepEqual(texts(schema, { spec: JSON.parse('{"__proto__":{"x":"y"},"constructor":"b"}') }), [
      'spec.__proto__.x: Invalid value: "string": spec.__proto__.x in body must be of type integer: "string"',
      'spec.constructor: Unsupported value: "b": supported values: "a"',
    ]);
    const defaulted = defaultCustomObject(schema, { spec: {} }) as { spec: Record<string, unknown> };
    assert.ok(Object.hasOwn(defaulted.spec, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(defaulted.spec, '__proto__')?.value, { x: 1 });
    assert.equal(Object.getPrototypeOf(defaulted.spec), Object.prototype);
    // An object member named after an inherited property is unknown, not a schema lookup hit.
    const { unknownFields } = pruneCustomObject(
      { type: 'object', properties: { spec: { type: 'object', properties: {} } } },
      { spec: { toString: 1, hasOwnProperty: 2 } },
    );
    assert.deepEqual(unknownFields, ['spec.hasOwnProperty', 'spec.toString']);
    assert.equal(({} as Record<string, unknown>).x, undefined, 'nothing reached Object.prototype');
    assert.doesNotThrow(() => ssaSchemaSet(schema, 'r'));
  });

  it('validates 200,000 list items and reports a repeat at the end of a set once', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { tags: { type: 'array', maxItems: 3, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 8 } } },
        },
      },
    };
    const tags = Array.from({ length: 200_000 }, (_, index) => `t${index}`);
    tags.push('t7');
    assert.deepEqual(texts(schema, { spec: { tags } }), ['spec.tags: Too many: 200001: must have at most 3 items', 'spec.tags[200000]: Duplicate value: "t7"']);
  });

  it('reports every one of 50,000 mistyped items (distinct messages) without quadratic work', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } } },
    };
    const errors = validateCustomObject(schema, { spec: { list: Array.from({ length: 50_000 }, () => 1) } });
    assert.equal(errors.length, 50_000);
    assert.equal(fieldErrorText(errors[49_999]!), 'spec.list[49999]: Invalid value: "integer": spec.list[49999] in body must be of type string: "integer"');
  });

  it('matches patterns in linear time: catastrophic backtracking patterns cannot stall', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '(x+x+)+y' } } } },
    };
    assert.deepEqual(texts(schema, { spec: { a: `${'a'.repeat(100_000)}!`, b: 'x'.repeat(100_000) } }), [
      `spec.a: Invalid value: "${'a'.repeat(100_000)}!": spec.a in body should match '^(a+)+$'`,
      `spec.b: Invalid value: "${'x'.repeat(100_000)}": spec.b in body should match '(x+x+)+y'`,
    ]);
  });

  it('refuses patterns RE2 will not build (lookarounds, backreferences, huge repeats) when the CRD is written', () => {
    const refuse = (pattern: string): string[] =>
      validateStructuralSchema({ type: 'object', properties: { s: { type: 'string', pattern } } }, 'p', {
        statusSubresource: false,
        scaleSubresource: false,
      }).map(fieldErrorText);
    assert.deepEqual(refuse('(a)\\1'), [
      'p.properties[s].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn\'t: error parsing regexp: invalid escape sequence: `\\1`',
    ]);
    assert.deepEqual(refuse('a{1001}'), [
      'p.properties[s].pattern: Invalid value: "a{1001}": must be a valid regular expression, but isn\'t: error parsing regexp: invalid repeat count: `{1001}`',
    ]);
    assert.equal(refuse('((a{100}){100}){100}').length, 1);
  });

  it('handles numbers at the edges of float64 and int64', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { n: { type: 'number', maximum: 1e308 }, i: { type: 'integer', minimum: 0 } } };
    assert.deepEqual(texts(schema, { n: 1.7976931348623157e308, i: 2 ** 64 }), [
      'n: Invalid value: 1.7976931348623157e+308: n in body should be less than or equal to 1e+308',
      'i: Invalid value: "number": i in body must be of type integer: "number"',
    ]);
    assert.deepEqual(texts(schema, { i: -(2 ** 63) }), ['i: Invalid value: -9223372036854775808: i in body should be greater than or equal to 0']);
  });
});
