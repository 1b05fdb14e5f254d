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
    ['request.path.lower().upper().base64Decode().urlDecode().urlDecodeUni().utf8ToUnicode()', 'string'],
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
    it(text, () =>
      assert.throws(
        () => typeOf(text),
        (error: unknown) => error instanceof ExpressionError && error.message === message,
      ),
    );
  }

  it('counts subexpressions through negation and nesting', () => {
    const five = 'a() && !(b() || c()) && d() || e()'.replaceAll('()', '');
    assert.doesNotThrow(() => checkSemantics(parseExpression(five).expr, { scope: 'global', policyType: 'CLOUD_ARMOR' }));
    assert.throws(
      () => checkSemantics(parseExpression(`${five} || f`).expr, { scope: 'global', policyType: 'CLOUD_ARMOR' }),
      (error: unknown) => error instanceof ExpressionError && error.message === 'The expression has too many subexpressions (maximum 5)',
    );
  });
});

describe("rules-language parser limits (CEL's defaults: 100,000 code points, recursion depth 250)", () => {
  const problem = (text: string): string | undefined => {
    try {
      typeCheck(parseExpression(text), text);
      return undefined;
    } catch (error) {
      if (error instanceof ExpressionError) return error.message;
      throw error;
    }
  };
  const chain = (calls: number): string => `request.path${'.lower()'.repeat(calls)} == 'a'`;
  const rows: [string, string, string | undefined][] = [
    ['247 chained calls', chain(247), undefined],
    ['248 chained calls (member rule depth 250)', chain(248), undefined],
    ['249 chained calls', chain(249), '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['3,000 chained calls', chain(3000), '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['12,000 chained calls', chain(12000), '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['249 nested parentheses', `${'('.repeat(249)}true${')'.repeat(249)}`, undefined],
    ['250 nested parentheses', `${'('.repeat(250)}true${')'.repeat(250)}`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['40,000 nested parentheses', `${'('.repeat(40000)}true${')'.repeat(40000)}`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['20,000 nested lists', `${'['.repeat(20000)}${']'.repeat(20000)} == []`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['parentheses inside a string do not count', `request.path == '${'('.repeat(300)}'`, undefined],
    ['249 additions', `${Array(250).fill('1').join(' + ')} == 1`, undefined],
    ['250 additions', `${Array(251).fill('1').join(' + ')} == 1`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['3,000 || terms are balanced, not deep', Array(3000).fill("request.path == 'a'").join(' || '), undefined],
    ['operators deeper than 250 in total', `origin.ip${'.lower()'.repeat(60)}.size()${' + 1'.repeat(200)} == 1`, '<input>:-1:0: max recursion depth exceeded'],
    ['100,000 code points', `request.path == '${'é'.repeat(100_000 - 18)}'`, undefined],
    [
      '100,001 code points',
      `request.path == '${'é'.repeat(100_001 - 18)}'`,
      '<input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000',
    ],
    [
      'astral characters count once',
      `request.path == '${'😀'.repeat(100_001 - 18)}'`,
      '<input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000',
    ],
  ];
  for (const [name, text, expected] of rows) it(name, () => assert.equal(problem(text), expected));
});
