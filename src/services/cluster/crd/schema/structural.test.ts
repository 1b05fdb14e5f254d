import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { validateStructuralSchema } from './index.ts';
import { CERTIFICATE_LIKE, FOO } from './schemas.fixture.ts';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';
const NO_SUBRESOURCES = { statusSubresource: false, scaleSubresource: false };
const texts = (schema: JSONSchemaProps, options = NO_SUBRESOURCES): string[] => validateStructuralSchema(schema, ROOT, options).map(fieldErrorText);
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

describe('validateStructuralSchema: the apiserver checks of a version schema, with its texts', () => {
  it('accepts the sample controller Foo and a cert-manager-like schema', () => {
    assert.deepEqual(texts(FOO, { statusSubresource: true, scaleSubresource: false }), []);
    assert.deepEqual(texts(CERTIFICATE_LIKE, { statusSubresource: true, scaleSubresource: false }), []);
  });

  it('requires types: at the root, for object fields and for array items; arrays need items', () => {
    assert.deepEqual(texts({ properties: { spec: { properties: { list: { type: 'array' }, other: { type: 'array', items: {} } } } } }), [
      `${ROOT}.properties[spec].properties[list].items: Required value: must be specified`,
      `${ROOT}.properties[spec].properties[other].items.type: Required value: must not be empty for specified array items`,
      `${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.type: Required value: must not be empty at the root`,
    ]);
    assert.deepEqual(texts({ type: 'string' }), [`${ROOT}.type: Invalid value: "string": must be object at the root`]);
  });

  it('refuses the unsupported keywords, type null, tuple items and uniqueItems', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        a: { type: 'string', $ref: '#/definitions/x' },
        b: { type: 'string', id: 'x' },
        c: { type: 'null' },
        d: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        e: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
        f: { type: 'array', items: [{ type: 'string' }] },
      },
    });
    const errors = texts(schema);
    for (const expected of [
      `${ROOT}.properties[spec].properties[a].$ref: Forbidden: $ref is not supported`,
      `${ROOT}.properties[spec].properties[b].id: Forbidden: id is not supported`,
      `${ROOT}.properties[spec].properties[c].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${ROOT}.properties[spec].properties[c].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${ROOT}.properties[spec].properties[d].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${ROOT}.properties[spec].properties[e].patternProperties: Forbidden: patternProperties is not supported`,
      `${ROOT}.properties[spec].properties[f].items: Forbidden: items must be a schema object and not an array`,
    ]) {
      assert.ok(errors.includes(expected), `missing ${expected} in ${JSON.stringify(errors, null, 1)}`);
    }
  });

  it('refuses additionalProperties beside properties and at the root', () => {
    assert.deepEqual(texts(withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } })), [
      `${ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    assert.deepEqual(texts({ type: 'object', additionalProperties: { type: 'string' } }), [
      `${ROOT}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
  });

  it('forbids types, defaults, descriptions and extensions inside junctors, and junctors on fields not specified outside', () => {
    const schema = withSpec({
      type: 'object',
      properties: { a: { type: 'string' } },
      anyOf: [{ type: 'object', description: 'x', properties: { a: { nullable: true }, b: { minLength: 1 } } }],
      not: { 'x-kubernetes-preserve-unknown-fields': true, default: {} },
    });
    assert.deepEqual(texts(schema), [
      `${ROOT}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[spec].anyOf[0].properties[a].nullable: Forbidden: must be false to be structural`,
      `${ROOT}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[spec].not.default: Forbidden: must be undefined to be structural`,
      `${ROOT}.properties[spec].not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
    ]);
    // Completeness is checked for the root's junctors, as upstream does.
    const root: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object' } },
      allOf: [{ properties: { status: { required: ['x'] } } }, { items: { minLength: 1 } }],
    };
    assert.deepEqual(texts(root), [
      `${ROOT}.items: Required value: because it is defined in ${ROOT}.allOf[1].items`,
      `${ROOT}.properties[status]: Required value: because it is defined in ${ROOT}.allOf[0].properties[status]`,
    ]);
  });

  it('allows the two int-or-string junctor forms', () => {
    const intOrString = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } satisfies JSONSchemaProps;
    const allOfForm = {
      'x-kubernetes-int-or-string': true,
      allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+%?$' }],
    } satisfies JSONSchemaProps;
    assert.deepEqual(texts(withSpec({ type: 'object', properties: { port: intOrString, max: allOfForm } })), []);
    assert.deepEqual(
      texts(withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } })),
      [
        `${ROOT}.properties[spec].properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    );
  });

  it('restricts root metadata to name and generateName, and refuses metadata in nested junctors', () => {
    const ok: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } };
    assert.deepEqual(texts(ok), []);
    assert.deepEqual(texts({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }), [
      `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    assert.deepEqual(texts({ type: 'object', properties: { metadata: { type: 'string' } } }), [
      `${ROOT}.properties[metadata].type: Invalid value: "string": must be object`,
    ]);
    assert.deepEqual(texts({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } } }), [
      `${ROOT}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`,
    ]);
  });

  it('applies the status-subresource root restrictions and forbids a nullable root', () => {
    assert.deepEqual(texts({ type: 'object', nullable: true }), [`${ROOT}.nullable: Forbidden: nullable cannot be true at the root`]);
    const errors = texts({ type: 'object', minProperties: 1 }, { statusSubresource: true, scaleSubresource: false });
    assert.equal(errors.length, 1);
    const first = errors[0] ?? '';
    assert.ok(
      first.startsWith(
        `${ROOT}: Invalid value: apiextensions.JSONSchemaProps{ID:"", Schema:"", Ref:(*string)(nil), Description:"", Type:"object", Nullable:false,`,
      ),
      first,
    );
    assert.ok(
      first.endsWith(
        ': only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
      ),
    );
    assert.deepEqual(texts({ type: 'object', minProperties: 1 }), []);
  });

  it('checks embedded resources and the extensions', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        embedded: { type: 'string', 'x-kubernetes-embedded-resource': true },
        bare: { type: 'object', 'x-kubernetes-embedded-resource': true },
      },
    });
    const errors = texts(schema);
    assert.ok(
      errors.includes(`${ROOT}.properties[spec].properties[embedded].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`),
      errors.join('\n'),
    );
    assert.ok(
      errors.includes(
        `${ROOT}.properties[spec].properties[bare].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      ),
    );
    // A false preserve-unknown-fields stops the structural conversion: only the keyword error is left.
    const keep = withSpec({
      type: 'object',
      properties: { keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false, 'x-kubernetes-embedded-resource': true } },
    });
    assert.deepEqual(texts(keep), [
      `${ROOT}.properties[spec].properties[keep].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
  });

  it('checks list and map types: kinds, keys required or defaulted, not nullable, scalar, set items atomic', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        bad: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } },
        notArray: { type: 'string', 'x-kubernetes-list-type': 'set' },
        noKeys: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { a: { type: 'string' } } } },
        keysNoMap: { type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', properties: { a: { type: 'string' } } } },
        optionalKey: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'missing', 'obj'],
          items: { type: 'object', properties: { name: { type: 'string', nullable: true }, obj: { type: 'object' } } },
        },
        setOfObjects: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } },
        mapType: { type: 'object', 'x-kubernetes-map-type': 'loose' },
      },
    });
    const p = `${ROOT}.properties[spec].properties`;
    assert.deepEqual(texts(schema), [
      `${p}[bad].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      `${p}[notArray].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
      `${p}[noKeys].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${p}[keysNoMap].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${p}[optionalKey].x-kubernetes-list-map-keys: Invalid value: []string{"name", "missing", "obj"}: entries must all be names of item properties`,
      `${p}[optionalKey].items.properties[obj].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${p}[optionalKey].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${p}[optionalKey].items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${p}[optionalKey].items.properties[obj].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${p}[setOfObjects].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${p}[mapType].x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"`,
    ]);
  });

  it('refuses a pattern RE2 cannot compile, with Go regexp words', () => {
    assert.deepEqual(texts(withSpec({ type: 'object', properties: { name: { type: 'string', pattern: '(?<=a)b' } } })), [
      `${ROOT}.properties[spec].properties[name].pattern: Invalid value: "(?<=a)b": must be a valid regular expression, but isn't: error parsing regexp: invalid named capture: \`(?<=a)b\``,
    ]);
  });

  // A default is validated as a document of its own, so its path is empty and kube-openapi's text starts with a space.
  it('checks defaults: pruned, valid against their node, not in top-level metadata nor metadata maps', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        replicas: { type: 'integer', maximum: 5, default: 10 },
        mode: { type: 'string', enum: ['a', 'b'], default: 'c' },
        nested: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } },
        good: { type: 'object', properties: { a: { type: 'string', default: 'z' } }, default: {} },
      },
    });
    assert.deepEqual(texts(schema), [
      `${ROOT}.properties[spec].properties[replicas].default: Invalid value: 10:  in body should be less than or equal to 5`,
      `${ROOT}.properties[spec].properties[mode].default: Unsupported value: "c": supported values: "a", "b"`,
      `${ROOT}.properties[spec].properties[nested].default: Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields`,
    ]);
    const embedded = withSpec({
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { metadata: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } },
        },
      },
    });
    assert.deepEqual(texts(embedded), [
      `${ROOT}.properties[spec].properties[template].properties[metadata].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
    ]);
  });

  it('reports a schema that cannot be read as structural only when nothing else is wrong', () => {
    assert.deepEqual(texts({ type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' }), [
      `${ROOT}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`,
    ]);
  });
  it('checks the type fields of resources and the map-type extension', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        kind: { type: 'integer' },
        apiVersion: { type: 'string' },
        spec: {
          type: 'object',
          properties: {
            template: { type: 'object', 'x-kubernetes-embedded-resource': true, additionalProperties: { type: 'string' } },
            list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
          },
        },
      },
    };
    assert.deepEqual(texts(schema), [
      `${ROOT}.properties[kind].type: Invalid value: "integer": must be string`,
      `${ROOT}.properties[spec].properties[template].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`,
      `${ROOT}.properties[spec].properties[template].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${ROOT}.properties[spec].properties[list].type: Invalid value: "array": must be object if x-kubernetes-map-type is specified`,
    ]);
  });
  it('checks defaults inside a nested resource as metadata of that resource, and embedded defaults as resources', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            kind: { type: 'string', default: 'bad kind' },
            metadata: {
              type: 'object',
              properties: { name: { type: 'string', default: 'bad/name' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
            },
          },
        },
        wrongMetadata: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          default: { apiVersion: 'v1', kind: 'Pod', metadata: 42 },
        },
        wrongName: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a%b' } },
        },
      },
    });
    const p = `${ROOT}.properties[spec].properties`;
    assert.deepEqual(texts(schema), [
      `${p}[embedded].properties[kind].default: Invalid value: "bad kind": must result in valid metadata: kind: Invalid value: "bad kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${p}[embedded].properties[metadata].properties[name].default: Invalid value: "bad/name": must result in valid metadata: metadata.name: Invalid value: "bad/name": may not contain '/'`,
      `${p}[wrongMetadata].default.metadata: Invalid value: 42: json: cannot unmarshal number into Go value of type v1.ObjectMeta`,
      `${p}[wrongName].default.metadata.name: Invalid value: "a%b": may not contain '%'`,
    ]);
  });
});
