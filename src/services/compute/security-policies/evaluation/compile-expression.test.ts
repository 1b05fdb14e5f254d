import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpressionError } from '../check-expression.ts';
import { compileExpression, compiledExpressionCount, evaluateTraced } from './compile-expression.ts';
import { viewRequest } from './request-view.ts';
import type { TrafficRequest } from './traffic-request.ts';

const request: TrafficRequest = { method: 'GET', url: 'https://example.com/admin?a=1', headers: { 'x-key': 'k' }, sourceIp: '203.0.113.9' };
const bindings = viewRequest(request, []).bindings();
const run = (text: string, wafUnknown: 'match' | 'no-match' = 'no-match') => {
  const trace = { wafUnknown, unevaluated: [] as { function: string; argument: string }[] };
  return { result: evaluateTraced(compileExpression(text).evaluate, bindings, trace), trace };
};

describe('compiled expressions', () => {
  it('compile once per distinct text', () => {
    const text = `request.path == '/cache-${Date.now()}'`;
    const before = compiledExpressionCount();
    const first = compileExpression(text);
    assert.equal(compileExpression(text), first);
    assert.equal(compiledExpressionCount(), before + 1);
    compileExpression(`${text} || false`);
    assert.equal(compiledExpressionCount(), before + 2);
  });

  it("test map keys with Cloud Armor's has(m['k'])", () => {
    assert.deepEqual(run("has(request.headers['x-key'])").result, { value: true });
    assert.deepEqual(run("has(request.headers['absent'])").result, { value: false });
    assert.deepEqual(run("!has(request.headers['absent']) && request.path == '/admin'").result, { value: true });
  });

  it('report a run-time error as the result, with the wording of CEL', () => {
    assert.deepEqual(run("request.headers['absent'] == 'x'").result, { error: 'no such key: absent' });
    assert.deepEqual(run("int(request.headers['x-key']) == 1").result, { error: 'cannot convert "k" to int' });
    assert.deepEqual(run("int(' 12') == 12").result, { error: 'cannot convert " 12" to int' });
    assert.deepEqual(run("int('0x10') == 16").result, { error: 'cannot convert "0x10" to int' });
    assert.deepEqual(run("int('9223372036854775808') > 0").result, { error: 'cannot convert "9223372036854775808" to int: out of range' });
    assert.deepEqual(run("int('-42') == -42 && int('+7') == 7").result, { value: true });
    assert.deepEqual(run("inIpRange(origin.ip, '1.2.3.0/99')").result, { error: 'invalid IP range: 1.2.3.0/99' });
    assert.deepEqual(run("inIpRange(request.headers['x-key'], '1.2.3.0/24')").result, { error: 'invalid IP address: k' });
  });

  it('let && and || absorb an error the other side decides', () => {
    assert.deepEqual(run("request.path == '/nope' && request.headers['absent'] == 'x'").result, { value: false });
    assert.deepEqual(run("request.headers['absent'] == 'x' || request.path == '/admin'").result, { value: true });
    assert.deepEqual(run("request.headers['absent'] == 'x' || request.path == '/nope'").result, { error: 'no such key: absent' });
  });

  it('decide calls that cannot be evaluated locally as wafUnknown says, and trace them', () => {
    const text = "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1}) && request.path == '/admin'";
    assert.deepEqual(run(text, 'match').result, { value: true });
    const noMatch = run(text, 'no-match');
    assert.deepEqual(noMatch.result, { value: false });
    assert.deepEqual(noMatch.trace.unevaluated, [{ function: 'evaluatePreconfiguredWaf', argument: 'sqli-v33-stable' }]);
    assert.deepEqual(run("evaluatePreconfiguredExpr('xss-stable', ['owasp-crs-v030001-id941180-xss'])", 'match').trace.unevaluated, [
      { function: 'evaluatePreconfiguredExpr', argument: 'xss-stable' },
    ]);
    assert.deepEqual(compileExpression(text).wafSets, ['sqli-v33-stable']);
  });

  it('split the top-level chain into terms, written as the user wrote them', () => {
    const compiled = compileExpression("has(request.headers['x-key']) && request.path.startsWith('/admin') && !inIpRange(origin.ip, '10.0.0.0/8')");
    assert.equal(compiled.operator, '&&');
    assert.deepEqual(
      compiled.terms().map((term) => term.text),
      ['has(request.headers["x-key"])', 'request.path.startsWith("/admin")', '!inIpRange(origin.ip, "10.0.0.0/8")'],
    );
    assert.deepEqual(
      compiled.terms().map((term) => term.evaluate(bindings)),
      [{ value: true }, { value: true }, { value: true }],
    );
    assert.equal(compileExpression("request.method == 'GET'").operator, undefined);
  });

  it('throw ExpressionError on text that does not parse', () => {
    assert.throws(() => compileExpression('request.path ==='), ExpressionError);
  });
});
