import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateExpression } from './evaluate.ts';

function value(text: string, self: unknown = null): unknown {
  const result = evaluateExpression(text, self);
  if ('error' in result) assert.fail(`${text}: ${result.error}`);
  return result.value;
}

function error(text: string, self: unknown = null): string {
  const result = evaluateExpression(text, self);
  assert.ok('error' in result, `${text} should fail`);
  return result.error;
}

describe('CEL standard library and macros on @bufbuild/cel values', () => {
  it('evaluates the documented rule shapes', () => {
    const self = { minReplicas: 1, replicas: 3, maxReplicas: 5, stateCounts: { Available: 1 }, list1: [], list2: [1], map1: { MY_KEY: 'abc' } };
    assert.equal(value('self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas', self), true);
    assert.equal(value("'Available' in self.stateCounts", self), true);
    assert.equal(value('(size(self.list1) == 0) != (size(self.list2) == 0)', self), true);
    assert.equal(value("!('MY_KEY' in self.map1) || self['map1']['MY_KEY'].matches('^[a-zA-Z]*$')", self), true);
    assert.equal(value("[{'name': 'MY_ENV', 'value': 'abc'}].filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))"), true);
    assert.equal(value("type(self) == string ? self == '100%' : self == 1000", '100%'), true);
    assert.equal(value("type(self) == string ? self == '100%' : self == 1000", 1000), true);
    assert.deepEqual(value('[1, 2, 3].map(x, x * 2)'), [2, 4, 6]);
    assert.equal(value('[1, 2, 3].exists_one(x, x > 2)'), true);
    assert.equal(value("has(self.a) ? self.a : 'none'", { b: 1 }), 'none');
    assert.equal(value('[1, 2].all(x, [3].all(x, x == 3) && x < 3)'), true);
  });

  it('reports run-time errors as cel-go words them', () => {
    assert.equal(error('self.missing == 1', { present: 1 }), 'no such key: missing');
    assert.equal(error('[1, 2][5] == 1'), 'index out of bounds: 5');
    assert.equal(error('1 / 0 == 1'), 'division by zero');
    assert.equal(error('9223372036854775807 + 1 == 0'), 'integer overflow');
  });

  it('absorbs errors where CEL does: false && error is false, true || error is true', () => {
    assert.equal(value('false && self.missing == 1', {}), false);
    assert.equal(value('true || self.missing == 1', {}), true);
    assert.equal(value('self.missing == 1 || true', {}), true);
  });
});

describe('extended strings (version 2)', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("'hello'.charAt(1)"), 'e');
    assert.equal(value("'hello mellow'.indexOf('ello')"), 1);
    assert.equal(value("'hello mellow'.lastIndexOf('ello')"), 7);
    assert.equal(value("'TacoCat'.lowerAscii()"), 'tacocat');
    assert.equal(value("'TacoCat'.upperAscii()"), 'TACOCAT');
    assert.equal(value("'hello hello'.replace('he', 'we')"), 'wello wello');
    assert.deepEqual(value("'hello hello hello'.split(' ')"), ['hello', 'hello', 'hello']);
    assert.equal(value("'tacocat'.substring(4)"), 'cat');
    assert.equal(value("'  \\ttrim\\n    '.trim()"), 'trim');
    assert.equal(value("['hello', 'mellow'].join(' ')"), 'hello mellow');
    assert.equal(value('strings.quote(\'single-quote with "double quote"\')'), '"single-quote with \\"double quote\\""');
    assert.equal(value("'%d items'.format([3])"), '3 items');
  });
});

describe('Kubernetes lists library', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value('[1, 2, 3].isSorted()'), true);
    assert.equal(value("['a', 'b', 'b', 'c'].isSorted()"), true);
    assert.equal(value('[2.0, 1.0].isSorted()'), false);
    assert.equal(value('[1, 2, 3].sum()'), 6);
    assert.equal(value('[1.0, 2.0, 3.0].sum()'), 6);
    assert.equal(value('[].sum()'), 0);
    assert.equal(value('[1, 2, 3].min()'), 1);
    assert.equal(value("['d', 'a', 'b'].max()"), 'd');
    assert.equal(value('[1, 2, 2, 3].indexOf(2)'), 1);
    assert.equal(value("['a', 'b', 'b', 'c'].lastIndexOf('b')"), 2);
    assert.equal(value('[1, 2].indexOf(9)'), -1);
    assert.equal(error('[].min() == 1'), 'min called on empty list');
  });
});

describe('sets extension', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value('sets.contains([], [])'), true);
    assert.equal(value('sets.contains([1, 2, 3, 4], [2, 3])'), true);
    assert.equal(value('sets.contains([1, 2, 3], [4])'), false);
    assert.equal(value('sets.equivalent([1, 2, 3], [3, 2, 1, 1])'), true);
    assert.equal(value('sets.equivalent([1], [1, 2])'), false);
    assert.equal(value('sets.intersects([1], [1, 2])'), true);
    assert.equal(value('sets.intersects([1], [2])'), false);
  });
});

describe('regex library (RE2 semantics, linear time)', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("'abc 123'.find('[0-9]+')"), '123');
    assert.equal(value("'abc 123'.find('xyz')"), '');
    assert.deepEqual(value("'123 abc 456'.findAll('[0-9]+')"), ['123', '456']);
    assert.deepEqual(value("'123 abc 456'.findAll('[0-9]+', 1)"), ['123']);
    assert.deepEqual(value("'123 abc 456'.findAll('xyz')"), []);
    assert.equal(value("'hello'.matches('^h.*o$')"), true);
  });

  it('refuses patterns RE2 refuses, and runs catastrophic-backtracking patterns in linear time', () => {
    assert.equal(error("'a'.matches('(?<=a)b')").startsWith('error parsing regexp:'), true);
    const evil = `${'a'.repeat(5000)}!`;
    assert.equal(value("self.matches('^(a+)+$')", evil), false);
    assert.equal(value("self.matches('^(a|a)*$')", evil), false);
  });
});

describe('url library', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("url('https://example.com:80/').getHost()"), 'example.com:80');
    assert.equal(value("url('https://example.com/').getScheme()"), 'https');
    assert.equal(value("url('https://[::1]:80/').getHostname()"), '::1');
    assert.equal(value("url('https://example.com:80/').getPort()"), '80');
    assert.equal(value("url('https://example.com/').getPort()"), '');
    assert.equal(value("url('https://example.com/path with spaces/').getEscapedPath()"), '/path%20with%20spaces/');
    assert.deepEqual(value("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()"), { k1: ['a'], k2: ['b', 'c'] });
    assert.equal(value("isURL('https://example.com/')"), true);
    assert.equal(value("isURL('/absolute-path')"), true);
    assert.equal(value("isURL('../relative-path')"), false);
    assert.equal(value("isURL('https://exa mple.com/')"), false);
  });
});

describe('quantity library', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("quantity('50k') == quantity('50000')"), true);
    assert.equal(value("isQuantity('1.3G')"), true);
    assert.equal(value("isQuantity('1.3Gi')"), true);
    assert.equal(value("isQuantity('1,3G')"), false);
    assert.equal(value("quantity('1.3G').isInteger()"), true);
    assert.equal(value("quantity('1.3m').isInteger()"), false);
    assert.equal(value("quantity('50k').asInteger()"), 50000);
    assert.equal(value("quantity('1.3m').asApproximateFloat()"), 0.0013);
    assert.equal(value("quantity('1Mi').isGreaterThan(quantity('100k'))"), true);
    assert.equal(value("quantity('100k').isLessThan(quantity('1Mi'))"), true);
    assert.equal(value("quantity('50M').add(quantity('20M')) == quantity('70M')"), true);
    assert.equal(value("quantity('50k').add(20) == quantity('50020')"), true);
    assert.equal(value("quantity('50M').sub(quantity('20M')) == quantity('30M')"), true);
    assert.equal(value("quantity('0.1').add(quantity('0.2')) == quantity('0.3')"), true);
    assert.equal(value("quantity('200M').compareTo(quantity('0.2G'))"), 0);
    assert.equal(value("quantity('-1').sign()"), -1);
    assert.equal(error("quantity('1,3G').isInteger()"), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert.equal(error("quantity('1.3m').asInteger() == 1"), 'cannot convert value to integer');
  });
});

describe('optional types', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value('optional.of(1).hasValue()'), true);
    assert.equal(value('optional.none().hasValue()'), false);
    assert.equal(value('optional.none().orValue(2)'), 2);
    assert.equal(value('optional.of(1).value()'), 1);
    assert.equal(value("optional.ofNonZeroValue('').hasValue()"), false);
    assert.equal(value('optional.none().or(optional.of(3)).value()'), 3);
    assert.equal(error('optional.none().value() == 1'), 'optional.none() dereference');
  });

  it('reads the optional field and index syntax', () => {
    assert.equal(value('self.?a.orValue(0)', {}), 0);
    assert.equal(value('self.?a.orValue(0)', { a: 7 }), 7);
    assert.equal(value('self.?a.?b.hasValue()', { a: {} }), false);
    assert.equal(value('self.?a.?b.value()', { a: { b: 'x' } }), 'x');
    assert.equal(value("self.m[?'k'].orValue('none')", { m: {} }), 'none');
    assert.equal(value("self.m[?'k'].orValue('none')", { m: { k: 'v' } }), 'v');
    assert.equal(value('self.xs[?5].hasValue()', { xs: [1] }), false);
    assert.equal(value("'a.?b' == 'a.?b' && [1, 2][0] == 1"), true);
  });
});

describe('ip and cidr libraries', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("isIP('127.0.0.1')"), true);
    assert.equal(value("isIP('::1')"), true);
    assert.equal(value("isIP('127.0.0.256')"), false);
    assert.equal(value("isIP('127.0.0.1/24')"), false);
    assert.equal(value("ip('127.0.0.1').family()"), 4);
    assert.equal(value("ip('::1').family()"), 6);
    assert.equal(value("ip('127.0.0.1').isLoopback()"), true);
    assert.equal(value("ip('0.0.0.0').isUnspecified()"), true);
    assert.equal(value("ip('fe80::1').isLinkLocalUnicast()"), true);
    assert.equal(value("ip('224.0.0.1').isLinkLocalMulticast()"), true);
    assert.equal(value("ip('192.168.0.1').isGlobalUnicast()"), true);
    assert.equal(value("ip('255.255.255.255').isGlobalUnicast()"), false);
    assert.equal(value("ip.isCanonical('2001:db8::abcd')"), true);
    assert.equal(value("ip.isCanonical('2001:DB8::ABCD')"), false);
    assert.equal(value("string(ip('2001:db8:0:0:0:0:0:1'))"), '2001:db8::1');
    assert.equal(value("ip('127.0.0.1') == ip('127.0.0.1')"), true);
    assert.equal(value("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))"), true);
    assert.equal(value("cidr('192.168.0.0/24').containsIP('192.168.1.1')"), false);
    assert.equal(value("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))"), true);
    assert.equal(value("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')"), false);
    assert.equal(value("string(cidr('192.168.0.1/24').ip())"), '192.168.0.1');
    assert.equal(value("string(cidr('192.168.0.1/24').masked())"), '192.168.0.0/24');
    assert.equal(value("cidr('::1/128').prefixLength()"), 128);
    assert.equal(value("isCIDR('192.168.0.0/33')"), false);
  });

  it('refuses what net/netip refuses, with the library texts', () => {
    assert.equal(error("ip('192.168.0.1.0').family() == 4"), "IP Address '192.168.0.1.0' parse error during conversion from string");
    assert.equal(error("ip('fe80::1%en0').family() == 6"), 'IP Address with zone value is not allowed');
    assert.equal(error("ip('::ffff:192.168.0.1').family() == 6"), 'IPv4-mapped IPv6 address is not allowed');
    assert.equal(error("ip('010.0.0.1').family() == 4"), "IP Address '010.0.0.1' parse error during conversion from string");
    assert.equal(error("cidr('192.168.0.0/').prefixLength() == 1"), 'network address parse error during conversion from string');
    assert.equal(error("cidr('fe80::1%en0/24').prefixLength() == 1"), 'CIDR with zone value is not allowed');
    assert.equal(error("cidr('::ffff:192.168.0.1/24').prefixLength() == 1"), 'IPv4-mapped IPv6 address is not allowed');
    assert.match(error("isIP(cidr('192.168.0.0/24'))"), /found no matching overload for 'isIP' applied to '\(net\.CIDR\)'/);
  });
});

describe('format library', () => {
  it('behaves as the documented examples', () => {
    assert.equal(value("format.dns1123Label().validate('my-label-name').hasValue()"), false);
    assert.deepEqual(value("format.dns1123Label().validate('My_Name').value()"), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(value("format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()"), false);
    assert.equal(value("format.dns1035Label().validate('1abc').hasValue()"), true);
    assert.equal(value("format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()"), false);
    assert.equal(value("format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()"), false);
    assert.equal(value("format.uri().validate('http://example.com').hasValue()"), false);
    assert.deepEqual(value("format.uuid().validate('nope').value()"), ['does not match the UUID format']);
    assert.equal(value("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()"), false);
    assert.equal(value("format.byte().validate('aGVsbG8=').hasValue()"), false);
    assert.equal(value("format.date().validate('2021-01-01').hasValue()"), false);
    assert.deepEqual(value("format.datetime().validate('2021-01-01').value()"), ['invalid datetime']);
    assert.equal(value("format.named('dns1123Label').hasValue()"), true);
    assert.equal(value("format.named('nope').hasValue()"), false);
    assert.equal(value("format.named('labelValue').value().validate('a b').hasValue()"), true);
  });
});
