import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps, ValidationRule } from '../types.ts';
import { compileTree } from './compile.ts';
import { compileSchemaRules } from './index.ts';
import { validateWithRules } from './validate.ts';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';

function rulesOf(schema: JSONSchemaProps) {
  const compiled = compileSchemaRules(schema, ROOT);
  return compiled.rules;
}

function run(schema: JSONSchemaProps, object: Record<string, unknown>, old?: Record<string, unknown>): { errors: string[]; warnings: string[] } {
  const result = rulesOf(schema).validate(object, old);
  return { errors: result.errors.map(fieldErrorText), warnings: result.warnings };
}

const replicasSchema = (rules: ValidationRule[]): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': rules,
      properties: {
        replicas: { type: 'integer' },
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        name: { type: 'string', maxLength: 20 },
      },
    },
  },
});

describe('rules run at their node with the apiserver error shapes', () => {
  const schema = replicasSchema([
    { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas.' },
    { rule: 'self.replicas <= self.maxReplicas' },
  ]);

  it('passes valid objects and words failures with the schema type as the value', () => {
    assert.deepEqual(run(schema, { spec: { replicas: 3, minReplicas: 1, maxReplicas: 5 } }), { errors: [], warnings: [] });
    assert.deepEqual(run(schema, { spec: { replicas: 20, minReplicas: 30, maxReplicas: 10 } }).errors, [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.',
      'spec: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas',
    ]);
  });

  it('reports run-time errors with the rule', () => {
    assert.deepEqual(run(schema, { spec: { replicas: 3, maxReplicas: 5 } }).errors, [
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: replicas should be greater than or equal to minReplicas.',
    ]);
  });

  it('uses messageExpression, falling back to message when it fails or is empty', () => {
    const withMessage = replicasSchema([
      { rule: "self.name.startsWith('a')", messageExpression: "self.name + ' must start with a'" },
      { rule: "self.name.startsWith('b')", message: 'static', messageExpression: "''" },
    ]);
    assert.deepEqual(run(withMessage, { spec: { name: 'zed' } }).errors, [
      'spec: Invalid value: "object": zed must start with a',
      'spec: Invalid value: "object": static',
    ]);
  });

  it('applies reason and fieldPath', () => {
    const schemaWithReasons = replicasSchema([
      { rule: 'self.replicas < 10', message: 'too many', reason: 'FieldValueForbidden', fieldPath: '.replicas' },
      { rule: 'has(self.name)', message: 'name is required', reason: 'FieldValueRequired', fieldPath: '.name' },
      { rule: 'self.replicas != 11', reason: 'FieldValueDuplicate' },
    ]);
    assert.deepEqual(run(schemaWithReasons, { spec: { replicas: 11 } }).errors, [
      'spec.replicas: Forbidden: too many',
      'spec.name: Required value: name is required',
      'spec: Duplicate value: "object"',
    ]);
  });

  it('runs rules on every list item and map value, skipping nulls', () => {
    const schema2: JSONSchemaProps = {
      type: 'object',
      properties: {
        ports: { type: 'array', items: { type: 'integer', nullable: true, 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'must be positive' }] } },
        labels: {
          type: 'object',
          additionalProperties: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: "self != ''", message: 'must not be empty' }] },
        },
      },
    };
    assert.deepEqual(run(schema2, { ports: [1, -2, null, 0], labels: { a: 'x', b: '' } }).errors, [
      'ports[1]: Invalid value: "integer": must be positive',
      'ports[3]: Invalid value: "integer": must be positive',
      'labels[b]: Invalid value: "string": must not be empty',
    ]);
  });

  it('types timestamps, durations and int-or-string from the schema', () => {
    const schema3: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [
            { rule: "self.created + duration('1h') < self.expires", message: 'expires too early' },
            { rule: "type(self.port) == string ? self.port.endsWith('%') : self.port < 100", message: 'bad port' },
            { rule: "self.ttl < duration('24h')", message: 'ttl too long' },
          ],
          properties: {
            created: { type: 'string', format: 'date-time' },
            expires: { type: 'string', format: 'date-time' },
            port: { 'x-kubernetes-int-or-string': true },
            ttl: { type: 'string', format: 'duration' },
          },
        },
      },
    };
    const ok = { spec: { created: '2024-01-01T00:00:00Z', expires: '2024-01-01T02:00:00Z', port: '50%', ttl: '1h' } };
    assert.deepEqual(run(schema3, ok).errors, []);
    assert.deepEqual(run(schema3, { spec: { ...ok.spec, expires: '2024-01-01T00:30:00Z', port: 200, ttl: '48h' } }).errors, [
      'spec: Invalid value: "object": expires too early',
      'spec: Invalid value: "object": bad port',
      'spec: Invalid value: "object": ttl too long',
    ]);
  });
});

describe('rules at the root of the resource', () => {
  it('report at the nil path, as field.Path prints the root, and see apiVersion, kind and metadata.name', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: "self.metadata.name.startsWith('my-prefix')" },
        { rule: "self.kind == 'Widget'", message: 'wrong kind', fieldPath: '.spec' },
      ],
      properties: { spec: { type: 'object', properties: {} } },
    };
    assert.deepEqual(run(schema, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'list-pods' }, spec: {} }).errors, [
      '<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith(\'my-prefix\')',
      'spec: Invalid value: "object": wrong kind',
    ]);
  });

  it('compare only metadata.name and generateName of the resource in self == oldSelf', () => {
    const schema: JSONSchemaProps = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.metadata == oldSelf.metadata', message: 'renamed' }] };
    const old = { metadata: { name: 'a', resourceVersion: '1', labels: { x: 'y' } } };
    assert.deepEqual(run(schema, { metadata: { name: 'a', resourceVersion: '2' } }, old).errors, []);
    assert.deepEqual(run(schema, { metadata: { name: 'b', resourceVersion: '2' } }, old).errors, ['<nil>: Invalid value: "object": renamed']);
  });
});

describe('transition rules and ratcheting', () => {
  const immutable: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
          replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 5', message: 'at most 5' }] },
        },
      },
    },
  };

  it('skips transition rules on create and checks them on update', () => {
    assert.deepEqual(run(immutable, { spec: { name: 'a' } }).errors, []);
    assert.deepEqual(run(immutable, { spec: { name: 'a' } }, { spec: { name: 'a' } }).errors, []);
    assert.deepEqual(run(immutable, { spec: { name: 'b' } }, { spec: { name: 'a' } }).errors, ['spec.name: Invalid value: "string": Value is immutable']);
    // A field that did not exist before has no old value: the transition rule does not run.
    assert.deepEqual(run(immutable, { spec: { name: 'b' } }, { spec: {} }).errors, []);
  });

  it('ratchets: an unchanged invalid value is a warning, a changed one an error', () => {
    const stored = { spec: { replicas: 9 } };
    assert.deepEqual(run(immutable, { spec: { replicas: 9, name: 'x' } }, stored), {
      errors: [],
      warnings: ['spec.replicas: Invalid value: "integer": at most 5'],
    });
    assert.deepEqual(run(immutable, { spec: { replicas: 8 } }, stored).errors, ['spec.replicas: Invalid value: "integer": at most 5']);
  });

  it('ratchets what is below an uncorrelated list item with its nearest correlated ancestor, and nothing without ratcheting', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            other: { type: 'string' },
            items: {
              type: 'array',
              items: { type: 'object', properties: { size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 5', message: 'at most 5' }] } } },
            },
          },
        },
      },
    };
    const stored = { spec: { items: [{ size: 9 }] } };
    // The atomic list is unchanged: its items' failures ratchet with it (ratcheting_test.go "ArrayItems do not correlate by index").
    assert.deepEqual(run(schema, { spec: { items: [{ size: 9 }], other: 'x' } }, stored), {
      errors: [],
      warnings: ['spec.items[0].size: Invalid value: "integer": at most 5'],
    });
    assert.deepEqual(run(schema, { spec: { items: [{ size: 9 }, { size: 1 }] } }, stored).errors, ['spec.items[0].size: Invalid value: "integer": at most 5']);
    // A /status write validates without ratcheting: the unchanged failure is an error.
    const unratcheted = rulesOf(schema).validate({ spec: { items: [{ size: 9 }] } }, stored, { ratcheting: false });
    assert.deepEqual(unratcheted.errors.map(fieldErrorText), ['spec.items[0].size: Invalid value: "integer": at most 5']);
  });

  it('correlates list-type=map items by their keys, and runs optionalOldSelf rules on create', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 10 }, size: { type: 'integer' } },
            'x-kubernetes-validations': [
              { rule: 'self.size >= oldSelf.size', message: 'size may not shrink' },
              { rule: "oldSelf.hasValue() || self.name != 'new'", message: 'no new items named new', optionalOldSelf: true },
            ],
          },
        },
      },
    };
    const old = {
      items: [
        { name: 'a', size: 5 },
        { name: 'b', size: 5 },
      ],
    };
    assert.deepEqual(
      run(
        schema,
        {
          items: [
            { name: 'b', size: 5 },
            { name: 'a', size: 4 },
          ],
        },
        old,
      ).errors,
      ['items[1]: Invalid value: "object": size may not shrink'],
    );
    assert.deepEqual(run(schema, { items: [{ name: 'new', size: 1 }] }).errors, ['items[0]: Invalid value: "object": no new items named new']);
  });
});

describe('run-time cost budgets stop runaway evaluation', () => {
  const quadratic = (): JSONSchemaProps => ({
    type: 'object',
    properties: {
      xs: { type: 'array', maxItems: 5000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y || x != y))' }] },
    },
  });

  it('stops a call at the per-call limit with the apiserver text', () => {
    const { root } = compileTree(quadratic(), ROOT);
    const xs = Array.from({ length: 3000 }, (_, i) => i);
    const result = validateWithRules(root, { xs }, undefined);
    assert.deepEqual(result.errors.map(fieldErrorText), [
      'xs: Invalid value: "array": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x == y || x != y))',
    ]);
  });

  it('stops all rules when the per-object budget runs out', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        xs: {
          type: 'array',
          maxItems: 100,
          items: { type: 'array', maxItems: 300, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists(y, y == x))' }] },
        },
      },
    };
    const { root } = compileTree(schema, ROOT);
    const inner = Array.from({ length: 300 }, (_, i) => i);
    const result = validateWithRules(root, { xs: Array.from({ length: 60 }, () => inner) }, undefined);
    const texts = result.errors.map(fieldErrorText);
    assert.equal(texts.length, 1);
    assert.match(
      texts[0]!,
      /^xs\[\d+\]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run$/,
    );
  });
});

describe('hostile objects', () => {
  it('refuses a value nested past the depth limit instead of overflowing the stack', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } },
    };
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    assert.deepEqual(run(schema, { spec: deep }).errors, ['spec: Invalid value: "object": object nested too deeply']);
  });

  it('treats prototype-named keys as ordinary keys', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        m: {
          type: 'object',
          maxProperties: 5,
          additionalProperties: { type: 'integer' },
          'x-kubernetes-validations': [{ rule: "'__proto__' in self && self['constructor'] == 2" }],
        },
      },
    };
    const m = JSON.parse('{"__proto__": 1, "constructor": 2}') as Record<string, unknown>;
    assert.deepEqual(run(schema, { m }).errors, []);
  });
});
