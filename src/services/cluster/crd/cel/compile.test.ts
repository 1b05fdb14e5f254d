import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps, ValidationRule } from '../types.ts';
import { compileSchemaRules } from './index.ts';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';
const SPEC = `${ROOT}.properties[spec]`;
const TRY = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

function specSchema(
  rules: ValidationRule[],
  properties: Record<string, JSONSchemaProps> = { replicas: { type: 'integer' }, name: { type: 'string' } },
): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules } } };
}

function errors(schema: JSONSchemaProps): string[] {
  return compileSchemaRules(schema, ROOT).errors.map(fieldErrorText);
}

describe('rule fields are checked as the apiserver checks them', () => {
  it('needs a rule, and a single-line non-empty message', () => {
    assert.deepEqual(errors(specSchema([{ rule: ' ' }])), [`${SPEC}.x-kubernetes-validations[0].rule: Required value: rule is not specified`]);
    assert.deepEqual(errors(specSchema([{ rule: 'true', message: '  ' }])), [
      `${SPEC}.x-kubernetes-validations[0].message: Invalid value: "  ": message must be non-empty if specified`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: 'true', message: 'a\nb' }])), [
      `${SPEC}.x-kubernetes-validations[0].message: Invalid value: "a\\nb": message must not contain line breaks`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: 'true &&\ntrue' }])), [
      `${SPEC}.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`,
    ]);
  });

  it('checks messageExpression, reason and fieldPath', () => {
    assert.deepEqual(errors(specSchema([{ rule: 'true', messageExpression: ' ' }])), [
      `${SPEC}.x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: 'true', reason: 'Nope' }])), [
      `${SPEC}.x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: 'true', fieldPath: '.nope' }])), [
      `${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: 'true', fieldPath: '.replicas' }])), []);
  });

  it('skips compiling the rules of a node with a rule-field error at or below it, as the apiserver does', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.nope == 1' }],
      properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nope == 1' }, { rule: 'true', reason: 'Nope' }] } },
    };
    assert.deepEqual(errors(schema), [
      `${SPEC}.x-kubernetes-validations[1].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
  });

  it('forbids optionalOldSelf on rules without oldSelf', () => {
    assert.deepEqual(errors(specSchema([{ rule: 'self.replicas > 0', optionalOldSelf: true }])), [
      `${SPEC}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
    assert.deepEqual(errors(specSchema([{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }])), []);
    assert.deepEqual(errors(specSchema([{ rule: 'self.replicas >= oldSelf.?replicas.orValue(0)', optionalOldSelf: true }])), []);
    assert.match(errors(specSchema([{ rule: 'oldSelf.?nope.orValue(0) == 0', optionalOldSelf: true }]))[0]!, /undefined field 'nope'/);
  });
});

describe('compilation types self from the schema', () => {
  it('reports undefined fields and undeclared references with cel-go positions', () => {
    assert.deepEqual(errors(specSchema([{ rule: 'self.replica > 1' }])), [
      `${SPEC}.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replica > 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 1\n | ....^`,
    ]);
    assert.match(
      errors(specSchema([{ rule: 'foo == 1' }]))[0]!,
      /compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' \(in container ''\)\n \| foo == 1\n \| \^$/,
    );
    assert.match(errors(specSchema([{ rule: "self.replicas + 'a' == 1" }]))[0]!, /found no matching overload for '_\+_' applied to '\(int, string\)'/);
    assert.match(errors(specSchema([{ rule: 'self.name.contains(1)' }]))[0]!, /found no matching overload for 'contains' applied to 'string\.\(int\)'/);
  });

  it('requires a bool result and a string messageExpression', () => {
    assert.deepEqual(
      errors(specSchema([{ rule: 'self.replicas' }])).map((e) => e.slice(e.lastIndexOf(': ') + 2)),
      ['cel expression must evaluate to a bool'],
    );
    assert.deepEqual(
      errors(specSchema([{ rule: 'true', messageExpression: 'self.replicas' }])).map((e) => e.slice(e.lastIndexOf(': ') + 2)),
      ['must evaluate to a string'],
    );
  });

  it('reads escaped property names, apiVersion/kind/metadata.name at the root, int-or-string as dyn', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: "self.metadata.name.startsWith('a') && self.kind != '' && self.spec.__namespace__ != '' && self.spec.x__dash__y > 0" },
      ],
      properties: {
        spec: {
          type: 'object',
          properties: { namespace: { type: 'string', maxLength: 10 }, 'x-y': { type: 'integer' }, port: { 'x-kubernetes-int-or-string': true } },
        },
      },
    };
    assert.deepEqual(errors(schema), []);
    assert.deepEqual(
      errors({ ...schema, 'x-kubernetes-validations': [{ rule: "type(self.spec.port) == string ? self.spec.port == '80' : self.spec.port == 80" }] }),
      [],
    );
  });

  it('forbids oldSelf on the uncorrelatable portion of the schema', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        items: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
      },
    };
    assert.deepEqual(errors(schema), [
      `${ROOT}.properties[items].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[items]`,
    ]);
    const mapList: JSONSchemaProps = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        },
      },
    };
    assert.deepEqual(errors(mapList), []);
  });

  it('survives hostile rules: huge, deeply nested, unterminated', () => {
    const tail = (rule: string): string => {
      const text = errors(specSchema([{ rule }]))[0]!;
      return text.slice(text.indexOf('compilation failed: '), text.indexOf('\n'));
    };
    assert.equal(tail(`${'('.repeat(5000)}true${')'.repeat(5000)}`), 'compilation failed: ERROR: <input>:1:1: max recursion depth exceeded');
    assert.match(tail(`self${'.replicas'.repeat(10000)} > 0`), /^compilation failed: ERROR: <input>:1:\d+: max recursion depth exceeded$/);
    assert.match(tail(`self.replicas${' + 1'.repeat(20000)} > 0`), /^compilation failed: ERROR: <input>:1:\d+: max recursion depth exceeded$/);
    assert.equal(
      tail(`${'true && '.repeat(20000)}true`),
      'compilation failed: ERROR: <input>:1:1: expression code point size exceeds limit: size: 160004, limit 100000',
    );
    assert.match(tail("self.name == 'abc"), /^compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
  });
});

describe('static cost estimation as the apiserver computes it', () => {
  const tags = (itemBounds: JSONSchemaProps, maxItems?: number): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          tags: {
            type: 'array',
            ...(maxItems === undefined ? {} : { maxItems }),
            items: { type: 'string', ...itemBounds },
            'x-kubernetes-validations': [{ rule: "self.all(x, x.contains('gpu'))" }],
          },
        },
      },
    },
  });
  const RULE = `${SPEC}.properties[tags].x-kubernetes-validations[0].rule`;

  it('refuses a rule over an unbounded list of unbounded strings, with all three errors', () => {
    assert.deepEqual(errors(tags({})), [
      `${RULE}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${TRY}`,
      `${RULE}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${TRY}`,
    ]);
  });

  it('accepts it with maxItems and maxLength, at exactly the bounds the real validator accepts', () => {
    // Largest accepted maxItems for each maxLength, measured against apiextensions' own validator.
    for (const [maxLength, maxItems] of [
      [16, 909_090],
      [63, 333_333],
      [253, 94_339],
      [1024, 24_154],
    ] as const) {
      assert.deepEqual(errors(tags({ maxLength }, maxItems)), [], `maxLength ${maxLength}, maxItems ${maxItems}`);
      assert.deepEqual(errors(tags({ maxLength }, maxItems + 1)).length, 1, `maxLength ${maxLength}, maxItems ${maxItems + 1}`);
    }
    assert.deepEqual(errors(tags({ maxLength: 16 }, 909_091)), [`${RULE}: Forbidden: estimated rule cost exceeds budget by factor of 1.000000x ${TRY}`]);
    assert.deepEqual(errors(tags({ maxLength: 16 }, 2_000_000)), [`${RULE}: Forbidden: estimated rule cost exceeds budget by factor of 2.2x ${TRY}`]);
    assert.deepEqual(errors(tags({ maxLength: 63 }, 25)), []);
  });

  it('accepts self.all(x, x == 5) on an unbounded list of integers and refuses it on a list of lists', () => {
    const ints: JSONSchemaProps = {
      type: 'object',
      properties: { xs: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x == 5)' }] } },
    };
    assert.deepEqual(errors(ints), []);
    const nested: JSONSchemaProps = {
      type: 'object',
      properties: {
        xs: { type: 'array', items: { type: 'array', items: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x.all(y, y == 5))' }] },
      },
    };
    assert.equal(
      errors(nested)[0],
      `${ROOT}.properties[xs].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${TRY}`,
    );
  });

  it('multiplies a rule under a list by the list bound (cardinality)', () => {
    const schema = (maxItems?: number): JSONSchemaProps => ({
      type: 'object',
      properties: {
        xs: {
          type: 'array',
          ...(maxItems === undefined ? {} : { maxItems }),
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] },
        },
      },
    });
    assert.equal(
      errors(schema())[0],
      `${ROOT}.properties[xs].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${TRY}`,
    );
    assert.deepEqual(
      errors({
        ...schema(10),
        properties: {
          xs: {
            ...schema(10).properties!['xs']!,
            items: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] },
          },
        },
      }),
      [],
    );
  });

  it("prices library calls as the apiserver's estimator does, quirks included", () => {
    const list = (rule: string): JSONSchemaProps => ({
      type: 'object',
      properties: { xs: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule }] } },
    });
    // Global parsing functions are priced only as methods upstream, so statically they cost 1 …
    assert.deepEqual(errors(list('self.all(x, isQuantity(x))')), []);
    assert.deepEqual(errors(list('self.all(x, isCIDR(x))')), []);
    // … while url() traverses its argument: over a million unbounded strings that is far over budget.
    assert.equal(
      errors(list("self.all(x, url(x).getScheme() == 'https')"))[0],
      `${ROOT}.properties[xs].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${TRY}`,
    );
  });

  it('prices a messageExpression concatenating string(int) as unbounded, as the apiserver does', () => {
    assert.deepEqual(
      errors(specSchema([{ rule: 'self.replicas < 10', messageExpression: "'replicas ' + string(self.replicas)" }]))[0],
      `${SPEC}.x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${TRY}`,
    );
  });
});

describe('the documented example rules compile against a matching schema', () => {
  const str = { type: 'string', maxLength: 64 } as const;
  const schema = (rule: string): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule }],
        properties: {
          minReplicas: { type: 'integer' },
          replicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          stateCounts: { type: 'object', maxProperties: 10, additionalProperties: { type: 'integer' } },
          list1: { type: 'array', maxItems: 10, items: str },
          list2: { type: 'array', maxItems: 10, items: str },
          map1: { type: 'object', maxProperties: 10, additionalProperties: str },
          envars: { type: 'array', maxItems: 10, items: { type: 'object', properties: { name: str, value: str } } },
          created: { type: 'string', format: 'date-time' },
          expired: { type: 'string', format: 'date-time' },
          ttl: { type: 'string', format: 'duration' },
          health: str,
          widgets: { type: 'array', maxItems: 10, items: { type: 'object', properties: { key: str, foo: { type: 'integer' } } } },
          intOrString: { 'x-kubernetes-int-or-string': true },
          prefix: str,
          set1: { type: 'array', maxItems: 10, items: str },
          set2: { type: 'array', maxItems: 10, items: str },
          names: { type: 'array', maxItems: 10, items: str },
          details: { type: 'object', maxProperties: 10, additionalProperties: str },
          clusters: { type: 'array', maxItems: 10, items: { type: 'object', properties: { name: str } } },
          primary: str,
          limit: str,
        },
      },
    },
  });
  for (const rule of [
    'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas',
    "'Available' in self.stateCounts",
    '(size(self.list1) == 0) != (size(self.list2) == 0)',
    "!('MY_KEY' in self.map1) || self['map1'].size() > 0 && self.map1['MY_KEY'].matches('^[a-zA-Z]*$')",
    "self.envars.filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))",
    'has(self.expired) && self.created + self.ttl < self.expired',
    "self.health.startsWith('ok')",
    "self.widgets.exists(w, w.key == 'x' && w.foo < 10)",
    "type(self.intOrString) == string ? self.intOrString == '100%' : self.intOrString == 1000",
    'self.set1.all(e, !(e in self.set2))',
    'size(self.names) == size(self.details) && self.names.all(n, n in self.details)',
    'size(self.clusters.filter(c, c.name == self.primary)) == 1',
    "self.names.map(n, n.upperAscii()).exists(n, n == 'X')",
    "isQuantity(self.limit) && quantity(self.limit).isLessThan(quantity('10Gi'))",
    'self.names.isSorted() && sets.contains(self.names, self.set1)',
    "isURL(self.health) ? url(self.health).getScheme() == 'https' : true",
    'format.dns1123Label().validate(self.primary).hasValue() == false',
  ]) {
    it(rule, () => assert.deepEqual(errors(schema(rule)), []));
  }
});
