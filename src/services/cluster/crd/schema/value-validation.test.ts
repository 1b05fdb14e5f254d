import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { validateCustomObject } from './index.ts';
import { FOO } from './schemas.fixture.ts';

const texts = (schema: JSONSchemaProps, object: unknown): string[] => validateCustomObject(schema, object).map(fieldErrorText);
const field = (schema: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { field: schema } });
const spec = (properties: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});

describe('validateCustomObject: kube-openapi value validation with the apiserver texts', () => {
  it('words type mismatches as kube-openapi does, the value being the JSON type name (upstream validation_test cases)', () => {
    const schema = field({ type: 'object' });
    assert.deepEqual(texts(schema, { field: 'foo' }), ['field: Invalid value: "string": field in body must be of type object: "string"']);
    assert.deepEqual(texts(schema, { field: 42 }), ['field: Invalid value: "integer": field in body must be of type object: "integer"']);
    assert.deepEqual(texts(schema, { field: true }), ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']);
    assert.deepEqual(texts(schema, { field: 1.2 }), ['field: Invalid value: "number": field in body must be of type object: "number"']);
    assert.deepEqual(texts(schema, { field: [] }), ['field: Invalid value: "array": field in body must be of type object: "array"']);
    assert.deepEqual(texts(schema, { field: null }), ['field: Invalid value: "null": field in body must be of type object: "null"']);
    assert.deepEqual(texts(spec({ replicas: { type: 'integer' } }), { spec: { replicas: 'string' } }), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  it('reports type errors with reason FieldValueTypeInvalid and the rest as FieldValueInvalid', () => {
    const [typeError] = validateCustomObject(field({ type: 'string' }), { field: 1 });
    assert.equal(typeError?.type, 'FieldValueTypeInvalid');
    const [rangeError] = validateCustomObject(field({ type: 'integer', maximum: 1 }), { field: 2 });
    assert.equal(rangeError?.type, 'FieldValueInvalid');
  });

  it('accepts a whole float for an integer and an integer for a number', () => {
    assert.deepEqual(texts(field({ type: 'integer' }), { field: 3.0 }), []);
    assert.deepEqual(texts(field({ type: 'number' }), { field: 3 }), []);
    assert.deepEqual(texts(field({ type: 'integer' }), { field: 3.5 }), ['field: Invalid value: "number": field in body must be of type integer: "number"']);
  });

  it('lets nullable fields be null and int-or-string take both, nothing else', () => {
    assert.deepEqual(texts(field({ type: 'string', nullable: true }), { field: null }), []);
    const intOrString = field({ 'x-kubernetes-int-or-string': true });
    assert.deepEqual(texts(intOrString, { field: 42 }), []);
    assert.deepEqual(texts(intOrString, { field: '50%' }), []);
    assert.deepEqual(texts(intOrString, { field: null }), ['field: Invalid value: "null": field in body must be of type integer,string: "null"']);
    assert.deepEqual(texts(intOrString, { field: {} }), ['field: Invalid value: "object": field in body must be of type integer,string: "object"']);
  });

  it('reports an int-or-string anyOf failure at <nil> with the best alternative (upstream case)', () => {
    const schema = field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    assert.deepEqual(texts(schema, { field: null }), []);
    assert.deepEqual(texts(schema, { field: true }).sort(), [
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
      'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ]);
    assert.deepEqual(texts(schema, { field: 1.2 }).sort(), [
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "number": field in body must be of type integer,string: "number"',
      'field: Invalid value: "number": field in body must be of type integer: "number"',
    ]);
  });

  it('reports allOf, oneOf and not failures with kube-openapi words', () => {
    const allOf = field({ 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] });
    assert.deepEqual(texts(allOf, { field: [] }).sort(), [
      '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "array": field in body must be of type integer,string: "array"',
      'field: Invalid value: "array": field in body must be of type integer: "array"',
    ]);
    const oneOf = spec({ a: { type: 'string' }, b: { type: 'string' } }, { oneOf: [{ required: ['a'] }, { required: ['b'] }] });
    assert.deepEqual(texts(oneOf, { spec: { a: 'x' } }), []);
    assert.deepEqual(texts(oneOf, { spec: { a: 'x', b: 'y' } }), [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
    assert.deepEqual(texts(oneOf, { spec: {} }), [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid',
      'spec.a: Required value',
    ]);
    const not = spec({ a: { type: 'string' } }, { not: { required: ['a'] } });
    assert.deepEqual(texts(not, { spec: { a: 'x' } }), ['<nil>: Invalid value: "": "spec" must not validate the schema (not)']);
  });

  it('words bounds, lengths, patterns, enums, counts and multiples as 1.32 does', () => {
    const schema = spec({
      replicas: { type: 'integer', minimum: 1, maximum: 10 },
      name: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
      mode: { type: 'string', enum: ['a', 'b'] },
      items: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
      labels: { type: 'object', maxProperties: 2, minProperties: 1, additionalProperties: { type: 'string' } },
      step: { type: 'integer', multipleOf: 5 },
      ratio: { type: 'number', exclusiveMaximum: true, maximum: 1, exclusiveMinimum: true, minimum: 0 },
    });
    assert.deepEqual(texts(schema, { spec: { replicas: 20 } }), ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10']);
    assert.deepEqual(texts(schema, { spec: { replicas: 0 } }), ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1']);
    assert.deepEqual(texts(schema, { spec: { name: 'ABC' } }), [`spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`]);
    assert.deepEqual(texts(schema, { spec: { name: '' } }), ['spec.name: Invalid value: "": spec.name in body should be at least 1 chars long']);
    assert.deepEqual(texts(schema, { spec: { name: 'abcdef' } }), ['spec.name: Too long: may not be more than 5 bytes']);
    assert.deepEqual(texts(schema, { spec: { mode: 'x' } }), ['spec.mode: Unsupported value: "x": supported values: "a", "b"']);
    assert.deepEqual(texts(schema, { spec: { items: ['a', 'b', 'c', 'd'] } }), ['spec.items: Too many: 4: must have at most 3 items']);
    assert.deepEqual(texts(schema, { spec: { items: [] } }), ['spec.items: Invalid value: 0: spec.items in body should have at least 1 items']);
    assert.deepEqual(texts(schema, { spec: { labels: { a: 'x', b: 'y', c: 'z' } } }), ['spec.labels: Too many: 3: must have at most 2 items']);
    assert.deepEqual(texts(schema, { spec: { labels: {} } }), ['spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties']);
    assert.deepEqual(texts(schema, { spec: { labels: { a: 1 } } }), [
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    ]);
    assert.deepEqual(texts(schema, { spec: { step: 7 } }), ['spec.step: Invalid value: 7: spec.step in body should be a multiple of 5']);
    assert.deepEqual(texts(schema, { spec: { ratio: 1 } }), ['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1']);
    assert.deepEqual(texts(schema, { spec: { ratio: 0 } }), ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0']);
  });

  it('counts characters, not bytes, for lengths (utf8.RuneCount)', () => {
    assert.deepEqual(texts(field({ type: 'string', maxLength: 2 }), { field: 'éé' }), []);
    assert.deepEqual(texts(field({ type: 'string', maxLength: 2 }), { field: '😀😀😀' }), ['field: Too long: may not be more than 2 bytes']);
  });

  it('prints float64 values and bounds as Go does, int64 ones as integers', () => {
    const schema = field({ type: 'number', maximum: 1000000 });
    assert.deepEqual(texts(schema, { field: 2000000.5 }), ['field: Invalid value: 2.0000005e+06: field in body should be less than or equal to 1e+06']);
    assert.deepEqual(texts(schema, { field: 2000000 }), ['field: Invalid value: 2000000: field in body should be less than or equal to 1000000']);
    assert.deepEqual(texts(field({ type: 'number', multipleOf: 0.5 }), { field: 0.3 }), [
      'field: Invalid value: 0.3: field in body should be a multiple of 0.5',
    ]);
    // An int64 value is checked against the bound truncated to int64, as the 1.32 validator does.
    assert.deepEqual(texts(field({ type: 'integer', maximum: 2.5 }), { field: 3 }), [
      'field: Invalid value: 3: field in body should be less than or equal to 2',
    ]);
  });

  it('reports a pattern RE2 refuses on the value, with Go regexp words (upstream case)', () => {
    assert.deepEqual(texts(field({ type: 'string', pattern: '+' }), { field: 'foo' }), [
      'field: Invalid value: "foo": field in body should match \'+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`\'',
    ]);
  });

  it('reports missing required fields at every level, and values of the wrong enum type (upstream case)', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      required: ['field'],
      properties: {
        field: {
          type: 'object',
          required: ['nestedint', 'nestedstring'],
          properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
        },
      },
    };
    assert.deepEqual(texts(schema, { test: 'a' }), ['field: Required value']);
    assert.deepEqual(texts(schema, { field: {} }), ['field.nestedint: Required value', 'field.nestedstring: Required value']);
    assert.deepEqual(texts(schema, { field: { nestedint: 'x', nestedstring: true } }), [
      'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
      'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
      'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
    ]);
  });

  it('checks the formats the apiserver keeps and ignores the ones it strips', () => {
    const formats = (format: string, value: string): string[] => texts(field({ type: 'string', format }), { field: value });
    assert.deepEqual(formats('date-time', '2024-01-02T03:04:05Z'), []);
    assert.deepEqual(formats('date-time', '2024-01-02T03:04:05.123+02:00'), []);
    assert.deepEqual(formats('date-time', 'yesterday'), ['field: Invalid value: "yesterday": field in body must be of type date-time: "yesterday"']);
    assert.deepEqual(formats('date', '2024-02-30'), ['field: Invalid value: "2024-02-30": field in body must be of type date: "2024-02-30"']);
    assert.deepEqual(formats('date', '2024-02-29'), []);
    assert.deepEqual(formats('uuid', '123e4567-e89b-12d3-a456-426614174000'), []);
    assert.deepEqual(formats('uuid', 'nope'), ['field: Invalid value: "nope": field in body must be of type uuid: "nope"']);
    assert.deepEqual(formats('ipv4', '10.0.0.1'), []);
    assert.deepEqual(formats('ipv4', '10.0.0.256'), ['field: Invalid value: "10.0.0.256": field in body must be of type ipv4: "10.0.0.256"']);
    assert.deepEqual(formats('ipv6', '2001:db8::1'), []);
    assert.deepEqual(formats('cidr', '10.0.0.0/8'), []);
    assert.deepEqual(formats('cidr', '10.0.0.0/33'), ['field: Invalid value: "10.0.0.0/33": field in body must be of type cidr: "10.0.0.0/33"']);
    assert.deepEqual(formats('byte', 'aGVsbG8='), []);
    assert.deepEqual(formats('byte', 'not base64!'), ['field: Invalid value: "not base64!": field in body must be of type byte: "not base64!"']);
    assert.deepEqual(formats('duration', '1h30m'), []);
    assert.deepEqual(formats('duration', '3 days'), []);
    assert.deepEqual(formats('duration', 'soon'), ['field: Invalid value: "soon": field in body must be of type duration: "soon"']);
    assert.deepEqual(formats('hostname', 'api.example.com'), []);
    assert.deepEqual(formats('email', 'someone@example.com'), []);
    assert.deepEqual(formats('uri', 'https://example.com/x'), []);
    assert.deepEqual(formats('uri', 'example'), ['field: Invalid value: "example": field in body must be of type uri: "example"']);
    assert.deepEqual(formats('mac', '01:23:45:67:89:ab'), []);
    // Stripped by the apiserver, so never checked.
    assert.deepEqual(formats('int32', 'anything'), []);
    assert.deepEqual(formats('k8s-short-name', 'ANY THING'), []);
    assert.deepEqual(texts(field({ type: 'integer', format: 'int32' }), { field: 2 ** 40 }), []);
  });

  it('checks the value of a format-typed string that is not a string against its format', () => {
    assert.deepEqual(texts(field({ type: 'string', format: 'date-time' }), { field: 5 }), [
      'field: Invalid value: "int64": field in body must be of type date-time: "int64"',
    ]);
  });

  it('reports unknown members under additionalProperties: false as forbidden properties', () => {
    assert.deepEqual(texts(field({ type: 'object', additionalProperties: false }), { field: { x: 1 } }), [
      'field: Invalid value: "x": field.x in body is a forbidden property',
    ]);
  });

  it('checks embedded resources: apiVersion and kind required, their metadata as ObjectMeta', () => {
    const schema = spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } });
    assert.deepEqual(texts(schema, { spec: { template: {} } }), [
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
    ]);
    assert.deepEqual(texts(schema, { spec: { template: { apiVersion: 'a/b/c', kind: 'Bad_Kind' } } }), [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(texts(schema, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b' } } } }), [
      'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
    ]);
    assert.deepEqual(texts(schema, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 5 } } } }), [
      'spec.template.metadata: Invalid value: map[string]interface {}{"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string',
    ]);
    assert.deepEqual(texts(schema, { spec: { template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { labels: { app: 'web' } } } } }), []);
  });

  it('reports repeated set items and map-list keys as Duplicate value at their index', () => {
    const schema = spec({
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
      },
      env: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    });
    assert.deepEqual(texts(schema, { spec: { tags: ['a', 'b', 'a', 'a'] } }), ['spec.tags[2]: Duplicate value: "a"']);
    assert.deepEqual(texts(schema, { spec: { env: [{ name: 'A' }, { name: 'B' }, { name: 'A' }] } }), [
      'spec.env[2]: Duplicate value: map[string]interface {}{"name":"A"}',
    ]);
    assert.deepEqual(
      texts(schema, {
        spec: {
          ports: [
            { port: 80, protocol: 'TCP' },
            { port: 80, protocol: 'UDP' },
            { port: 80, protocol: 'TCP' },
          ],
        },
      }),
      ['spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
    );
    assert.deepEqual(texts(schema, { spec: { env: ['x'] } }), [
      'spec.env[0]: Invalid value: "string": spec.env[0] in body must be of type object: "string"',
      'spec.env[0]: Invalid value: "x": must be an object for an array of list-type map',
    ]);
  });

  it('validates the Foo of the sample controller', () => {
    const object = {
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name: 'example-foo' },
      spec: { deploymentName: 'example-foo', replicas: 1 },
    };
    assert.deepEqual(texts(FOO, object), []);
    assert.deepEqual(texts(FOO, { ...object, spec: { deploymentName: 'x', replicas: 11 } }), [
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    ]);
  });
  it('applies the root metadata schema to name and generateName, and reports a non-object document at <nil>', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } } };
    assert.deepEqual(texts(schema, { metadata: { name: 'too-long-name', namespace: 'default' } }), ['metadata.name: Too long: may not be more than 5 bytes']);
    assert.deepEqual(texts(schema, []), ['<nil>: Invalid value: "array":  in body must be of type object: "array"']);
  });

  it('lists non-string enum values as JSON, map keys sorted', () => {
    assert.deepEqual(texts(field({ type: 'object', enum: [{ b: 1, a: 2 }, null] }), { field: { c: 1 } }), [
      'field: Unsupported value: map[string]interface {}{"c":1}: supported values: "{\\"a\\":2,\\"b\\":1}", "null"',
    ]);
  });
  it('matches enums as kube-openapi converts values: null never, numbers truncated to integer values', () => {
    const nullable = field({ type: 'string', nullable: true, enum: ['a', null] });
    assert.deepEqual(texts(nullable, { field: null }), ['field: Unsupported value: "null": supported values: "a", "null"']);
    assert.deepEqual(texts(field({ type: 'number', enum: [1, 2] }), { field: 1.5 }), []);
    assert.deepEqual(texts(field({ type: 'number', enum: [1.5] }), { field: 1 }), ['field: Unsupported value: 1: supported values: "1.5"']);
  });
  it('ratchets on update: errors of unchanged values are dropped, changed or new ones reported', () => {
    const schema = spec({
      replicas: { type: 'integer', maximum: 10 },
      name: { type: 'string', pattern: '^[a-z]+$' },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } } },
      },
      args: { type: 'array', items: { type: 'string', maxLength: 3 } },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    });
    const old = { spec: { replicas: 20, name: 'BAD', ports: [{ name: 'a', port: 500 }], args: ['toolong'], tags: ['x', 'x'] } };
    // Nothing changed: nothing reported (not even the set's repeat, which the old object had).
    assert.deepEqual(validateCustomObject(schema, structuredClone(old), old), []);
    // The stored invalid values stay; a new invalid value is reported.
    const changed = {
      spec: {
        ...structuredClone(old.spec),
        replicas: 30,
        ports: [
          { name: 'b', port: 600 },
          { name: 'a', port: 500 },
        ],
      },
    };
    assert.deepEqual(validateCustomObject(schema, changed, old).map(fieldErrorText), [
      'spec.replicas: Invalid value: 30: spec.replicas in body should be less than or equal to 10',
      'spec.ports[0].port: Invalid value: 600: spec.ports[0].port in body should be less than or equal to 100',
    ]);
    // Items of lists that are not map lists do not correlate: an unchanged bad item in a changed list is reported.
    const args = { spec: { ...structuredClone(old.spec), args: ['toolong', 'ok'] } };
    assert.deepEqual(validateCustomObject(schema, args, old).map(fieldErrorText), ['spec.args[0]: Too long: may not be more than 3 bytes']);
    // Without the old object (a create), everything is reported.
    assert.equal(validateCustomObject(schema, old).length, 5);
  });
});
