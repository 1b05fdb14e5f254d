import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FUNCTIONS } from '../rules-language.ts';
import { IMPLEMENTED_FUNCTIONS, STANDARD_FUNCTIONS } from './cel-environment.ts';
import { compileExpression, evaluateTraced } from './compile-expression.ts';
import { viewRequest } from './request-view.ts';

/** One true call of every function the rules language declares, so a declaration without a runtime fails here. */
const SAMPLES: Readonly<Record<string, string>> = {
  size: 'size(request.path) == 2 && request.path.size() == 2',
  int: "int('42') == 42 && int(7) == 7",
  matches: "request.path.matches('^/a') && matches(request.path, 'a$')",
  contains: "request.path.contains('a')",
  startsWith: "request.path.startsWith('/')",
  endsWith: "request.path.endsWith('a')",
  inIpRange: "inIpRange(origin.ip, '192.0.2.0/24')",
  lower: "'AbC'.lower() == 'abc'",
  upper: "'AbC'.upper() == 'ABC'",
  base64Decode: "'YWI='.base64Decode() == 'ab'",
  urlDecode: "'a%20b+c'.urlDecode() == 'a b c'",
  urlDecodeUni: "'%u0041'.urlDecodeUni() == 'A'",
  utf8ToUnicode: "'¬'.utf8ToUnicode() == '%u00ac'",
  evaluatePreconfiguredExpr: "evaluatePreconfiguredExpr('sqli-stable') && evaluatePreconfiguredExpr('xss-stable', ['owasp-crs-v030001-id941180-xss'])",
  evaluatePreconfiguredWaf: "evaluatePreconfiguredWaf('sqli-v33-stable') && evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 2})",
  evaluateThreatIntelligence: "evaluateThreatIntelligence('iplist-tor-exit-nodes')",
  evaluateAddressGroup: "evaluateAddressGroup('my-group', origin.ip)",
};

describe('the run-time environment of the rules language', () => {
  const bindings = viewRequest({ method: 'GET', url: 'https://example.com/a', headers: {}, sourceIp: '192.0.2.1' }, []).bindings();

  it('implements every declared function, by CEL or by fogbank', () => {
    const declared = [...FUNCTIONS.keys()].filter((name) => /^[a-zA-Z]/.test(name));
    assert.deepEqual(
      declared.filter((name) => !IMPLEMENTED_FUNCTIONS.has(name) && !STANDARD_FUNCTIONS.has(name)),
      [],
    );
    assert.deepEqual(
      declared.filter((name) => SAMPLES[name] === undefined),
      [],
    );
  });

  for (const [name, text] of Object.entries(SAMPLES)) {
    it(`evaluates ${name}`, () => {
      const result = evaluateTraced(compileExpression(text).evaluate, bindings, { wafUnknown: 'match', unevaluated: [] });
      assert.deepEqual(result, { value: true });
    });
  }

  it('evaluates every declared operator', () => {
    const text = "1 + 2 == 3 && 5 - 1 > 3 && 2 * 2 <= 4 && 1.5 < 2.0 && 'a' + 'b' != 'ba' && !(1 >= 2) || false";
    assert.deepEqual(evaluateTraced(compileExpression(text).evaluate, bindings, { wafUnknown: 'no-match', unevaluated: [] }), { value: true });
  });
});
