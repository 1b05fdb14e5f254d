import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSemantics } from './check-expression-semantics.ts';
import { ExpressionError, parseExpression, typeCheck } from './check-expression.ts';
import { formatType } from './rules-language.ts';

function typeOf(text: string): string {
  return formatType(typeCheck(parseExpression(text), text));
}

describe('rules-language checker: types of accepted expressions', () => {
  const rows: [string, string][] = [
    ["request.method == 'POST'", 'bool'],
    ["request.headers['host']", 'dyn'],
    ['request.path.size() + size(request.query)', 'int'],
    ["int(request.headers['x-n']) > 3", 'bool'],
    ["request.scheme == 'https' && origin.region_code == 'DE'", 'bool'],
    ['origin.asn == 15169', 'bool'],
    ["origin.user_ip != '' || origin.tls_ja3_fingerprint == 'x' || origin.tls_ja4_fingerprint == 'y'", 'bool'],
    ['token.recaptcha_exemption.valid && token.recaptcha_action.valid && token.recaptcha_session.valid', 'bool'],
    ['token.recaptcha_action.score + token.recaptcha_session.score', 'double'],
    ["token.recaptcha_action.captcha_status == 'SUCCESS' && token.recaptcha_action.action == 'login'", 'bool'],
    ["request.path.lower().upper().base64Decode().urlDecode().urlDecodeUni().utf8ToUnicode()", 'string'],
    ["matches(request.path, '^/x') && request.query.contains('a') && request.path.startsWith('/') && request.path.endsWith('z')", 'bool'],
    ["inIpRange(origin.ip, '10.0.0.0/8')", 'bool'],
    ["evaluatePreconfiguredExpr('sqli-stable', ['owasp-crs-v030001-id942110-sqli'])", 'bool'],
    ["evaluateAddressGroup('blocked', origin.ip)", 'bool'],
    ['has(request.path)', 'bool'],
    ["has(request.headers['x'])", 'bool'],
    ['!(origin.asn < 2)', 'bool'],
  ];
  for (const [text, type] of rows) it(text, () => assert.equal(typeOf(text), type));
});

describe('rules-language checker: rejections', () => {
  const rows: [string, string][] = [
    ['request', "<input>:1:1: undeclared reference to 'request' (in container '')"],
    ['origin.asn ? true : false', "<input>:1:1: undeclared reference to '_?_:_' (in container '')"],
    ["'a' in ['a']", "<input>:1:4: undeclared reference to '@in' (in container '')"],
    ['-origin.asn < 0', "<input>:1:1: undeclared reference to '-_' (in container '')"],
    ["[1, 'a'] == [1]", "<input>:1:5: expected type 'int' but found 'string'"],
    ['origin.asn.lower()', "<input>:1:11: found no matching overload for 'lower' applied to 'int.()' (candidates: string.())"],
    ['1.5 < 2', "<input>:1:4: found no matching overload for '_<_' applied to '(double, int)' (candidates: (int, int),(double, double))"],
    ['origin.ip.x', "<input>:1:10: type 'string' does not support field selection"],
  ];
  for (const [text, message] of rows) {
    it(text, () => assert.throws(() => typeOf(text), (error: unknown) => error instanceof ExpressionError && error.message === message));
  }

  it('counts subexpressions through negation and nesting', () => {
    const five = "a() && !(b() || c()) && d() || e()".replaceAll('()', '');
    assert.doesNotThrow(() => checkSemantics(parseExpression(five).expr, { scope: 'global', policyType: 'CLOUD_ARMOR' }));
    assert.throws(
      () => checkSemantics(parseExpression(`${five} || f`).expr, { scope: 'global', policyType: 'CLOUD_ARMOR' }),
      (error: unknown) => error instanceof ExpressionError && error.message === 'The expression has too many subexpressions (maximum 5)',
    );
  });
});
