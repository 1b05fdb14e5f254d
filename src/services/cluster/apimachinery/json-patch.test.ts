import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJsonPatch } from './json-patch.ts';
import { StatusError } from './status.ts';

describe('applyJsonPatch', () => {
  it('adds, tests and removes a __proto__ member as an own key, leaving the prototype alone', () => {
    const patched = applyJsonPatch(
      { a: {} },
      JSON.parse(
        '[{"op":"add","path":"/a/__proto__","value":{"polluted":"yes"}},{"op":"test","path":"/a/__proto__/polluted","value":"yes"},{"op":"add","path":"/a/__proto__/more","value":1}]',
      ),
    ) as { a: object };
    assert.ok(Object.hasOwn(patched.a, '__proto__'));
    assert.equal(Object.getPrototypeOf(patched.a), Object.prototype);
    assert.equal(JSON.stringify(patched), '{"a":{"__proto__":{"polluted":"yes","more":1}}}');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('treats names inherited in JavaScript as absent and keeps keys that only look escaped', () => {
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'replace', path: '/toString', value: 1 }]),
      (error: unknown) => error instanceof StatusError && error.httpStatus === 422,
    );
    const escaped = applyJsonPatch(JSON.parse('{"\\u0000constructor":1,"constructor":2}'), [{ op: 'copy', from: '/constructor', path: '/prototype' }]);
    assert.equal(JSON.stringify(escaped), '{"\\u0000constructor":1,"constructor":2,"prototype":2}');
  });

  it("answers every failure with the apiserver's generic 422", () => {
    for (const operations of [[{ op: 'move', from: '/a', path: '/a/b' }], [{ op: 'nope', path: '/a' }], [null], [{ op: 'add' }]]) {
      assert.throws(
        () => applyJsonPatch({ a: {} }, operations),
        (error: unknown) =>
          error instanceof StatusError &&
          error.httpStatus === 422 &&
          error.reason === 'Invalid' &&
          error.message === 'the server rejected our request due to an error in our request',
      );
    }
  });
});
