import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goFloat as goFloatText } from '../schema/json-values.ts';
import { evaluateJsonPath, executeJsonPath, JsonPathError, parseJsonPath } from './jsonpath.ts';

const store = {
  Name: 'jsonpath',
  Book: [
    { Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centurey', Price: 8.95 },
    { Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99 },
    { Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Price: 8.99 },
  ],
  Bicycle: [
    { Color: 'red', Price: 19.95, IsNew: true },
    { Color: 'green', Price: 20.01, IsNew: false },
  ],
  Labels: { 'web/html': 15, 'k8s-app': 20 },
  Employees: { jason: 'manager', dan: 'clerk' },
};

const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
      status: { capacity: { cpu: '4' }, ready: true, addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }] },
    },
    {
      kind: 'None',
      metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
      status: {
        capacity: { cpu: '8' },
        ready: false,
        addresses: [
          { type: 'LegacyHostIP', address: '127.0.0.2' },
          { type: 'another', address: '127.0.0.3' },
        ],
      },
    },
  ],
  users: [
    { name: 'myself', user: {} },
    { name: 'e2e', user: { username: 'admin', password: 'secret' } },
  ],
};

describe('client-go JSONPath', () => {
  it('prints fields, indexes, slices, steps and unions as client-go does', () => {
    const types = { bools: [true, false, true, false], integers: [1, 2, 3, 4], floats: [1, 2.2, 3.3, 4], strings: ['one', 'two', 'three', 'four'] };
    const cases: [string, unknown, string][] = [
      ['{ .bools }', types, '[true,false,true,false]'],
      ['{ .bools[-1] }', types, 'false'],
      ['{ .bools[:4:2] }', types, 'true true'],
      ['{ .integers[-2] }', types, '3'],
      ['{ .floats[0:2] }', types, '1 2.2'],
      ['{ .strings }', types, '["one","two","three","four"]'],
      ['{ .strings[1::2] }', types, 'two four'],
      ['hello {.Name}', store, 'hello jsonpath'],
      ['{$.Labels.web/html}', store, '15'],
      ['{.Labels.k8s-app}', store, '20'],
      ['{.Bicycle[*].Color}', store, 'red green'],
      ['{..Price}', store, '8.95 12.99 8.99 19.95 20.01'],
      ['{...Price}', store, '8.95 12.99 8.99 19.95 20.01'],
      ['{.Book[-1:]}', store, '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}'],
      ['{..Book[2].Title}', store, 'Moby Dick'],
      ['{.Bicycle[?(@.IsNew==true)].Color}', store, 'red'],
      ['{.Book[?(@.Price<10.0)].Title}', store, 'Sayings of the Centurey Moby Dick'],
      ['{.Book[?(@.Category!="fiction")].Author}', store, 'Nigel Rees'],
      ['{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}', store, '{red 19.95 true} {green 20.01 false} '],
      ['{[1,3,4]}', [0, 1, 2, 3, 4], '1 3 4'],
      ['{[?(@<5)]}', [2, 6, 3, 7], '2 3'],
      ['{..}', [1, 2, 3], '[1,2,3]'],
      ['{"{"}', null, '{'],
      ['{range .items[*]}{.metadata.name}, {end}{.kind}', nodes, '127.0.0.1, 127.0.0.2, List'],
      ['{range .items[*]}{.metadata.name}{"\\t"}{end}', nodes, '127.0.0.1\t127.0.0.2\t'],
      ['{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}', nodes, '127.0.0.1, 127.0.0.2, 127.0.0.3, '],
      ["{.items[*]['metadata.name', 'status.capacity']}", nodes, '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'],
      ['{.users[?(@.name=="e2e")].user.password}', nodes, 'secret'],
      ['{.items[0].metadata.labels.kubernetes\\.io/hostname}', nodes, '127.0.0.1'],
      ['{.items[?(@..ready==true)].metadata.name}', nodes, '127.0.0.1'],
      ['{..name}', nodes, '127.0.0.1 127.0.0.2 myself e2e'],
      ['{[?(@.z)].id}', [{ id: 'i1' }, { id: 'i2', z: 1 }, { id: 'i3', z: null }], 'i2 i3'],
      ["{[-1]['x']}", [{ x: 1 }, { x: null }], 'null'],
    ];
    for (const [template, data, expected] of cases) assert.equal(executeJsonPath(template, data), expected, template);
  });

  it('gives no result for a missing key only when allowed, and client-go errors otherwise', () => {
    assert.equal(executeJsonPath('before-{.hello}after', store, { allowMissingKeys: true }), 'before-after');
    const failures: [string, unknown, string][] = [
      ['{.hello}', store, 'hello is not found'],
      ['{hello}', store, 'unrecognized identifier hello'],
      ['{.Labels[0]}', store, 'map[string]interface {} is not array or slice'],
      ['{.Book[?(@.Price<>10)]}', store, 'unrecognized filter operator <>'],
      ['{range .Labels.*}{@}{end}{end}', store, 'not in range, nothing to end'],
      ['{.Book[7]}', store, 'array index out of bounds: index 7, length 3'],
      ['{.Book[2:1]}', store, 'starting index 2 is greater than ending index 1'],
      ['{.Book[::0]}', store, 'step must be > 0'],
      ['{.Book[?(@.Price==8)]}', store, 'incompatible types for comparison'],
    ];
    for (const [template, data, message] of failures) assert.throws(() => executeJsonPath(template, data), new JsonPathError(message), template);
  });

  it('refuses malformed templates with client-go parse errors', () => {
    const failures: [string, string][] = [
      ['{.a', 'unclosed action'],
      ['{.a[0}', 'unterminated array'],
      ['{.a[x]}', 'invalid array index x'],
      ['{.a[?(@.b=="x"}', 'unterminated filter'],
      ['{"abc}', 'unterminated quoted string'],
      ['{............Price}', 'invalid multiple recursive descent'],
      ['{!}', "unrecognized character in action: U+0021 '!'"],
      ['{1.2.3}', 'cannot parse number 1.2.3'],
    ];
    for (const [template, message] of failures) assert.throws(() => parseJsonPath(template), new JsonPathError(message), template);
  });

  it('bounds nesting so a hostile template cannot exhaust the stack', () => {
    assert.throws(() => executeJsonPath(`${'{range @}'.repeat(100)}x`, [1]), new JsonPathError('range nested too deeply'));
    const deep = JSON.parse(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
    assert.equal(evaluateJsonPath(parseJsonPath('{..a}'), deep)[0]?.length, 5000);
    assert.equal(executeJsonPath(`{${'.a'.repeat(5000)}}`, deep), '1');
    assert.throws(() => executeJsonPath('{.a}', deep), new JsonPathError('value nested too deeply to print'));
  });

  it('treats __proto__ as an ordinary key', () => {
    const data = JSON.parse('{"__proto__":{"x":"own"}}');
    assert.equal(executeJsonPath('{.__proto__.x}', data), 'own');
    assert.equal(executeJsonPath('{.constructor}', {}, { allowMissingKeys: true }), '');
  });

  it('prints floats as Go fmt does', () => {
    assert.equal(goFloatText(2.5), '2.5');
    assert.equal(goFloatText(1234567.5), '1.2345675e+06');
    assert.equal(goFloatText(0.00001), '1e-05');
    assert.equal(goFloatText(0.0001), '0.0001');
    assert.equal(goFloatText(123456.5), '123456.5');
  });
});
