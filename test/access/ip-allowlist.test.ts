/** IP allow-lists: entry validation and normalisation, and matching (pure; no database). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileAllowList,
  MAX_ALLOW_LIST_ENTRIES,
  normalizeAllowListEntry,
  normalizeClientAddress,
  validateAllowList,
} from '../../src/domain/access/ip-allowlist.ts';

describe('normalizeAllowListEntry', () => {
  const accepted: Array<[string, string]> = [
    ['203.0.113.9', '203.0.113.9'],
    ['203.0.113.9/32', '203.0.113.9'],
    ['203.0.113.0/24', '203.0.113.0/24'],
    ['  198.51.100.0/24 ', '198.51.100.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // RFC 5952: first of equally long zero runs
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'], // …and the longest one
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group is not compressed
    ['::1', '::1'],
    ['::1/128', '::1'],
    ['::/0', '::/0'],
    ['::', '::'],
    ['::ffff:203.0.113.9', '203.0.113.9'], // IPv4-mapped entries become IPv4
    ['::ffff:198.51.100.0/120', '198.51.100.0/24'],
    ['::FFFF:CB00:7100/120', '203.0.113.0/24'],
    ['::ffff:0:0/96', '0.0.0.0/0'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'], // NAT64 is not IPv4-mapped: stays IPv6
    ['fe80::/10', 'fe80::/10'],
  ];
  for (const [input, expected] of accepted) {
    it(`accepts ${JSON.stringify(input)} as ${expected}`, () => {
      assert.deepEqual(normalizeAllowListEntry(input), { ok: true, entry: expected });
    });
  }

  const refused: Array<[unknown, RegExp]> = [
    ['10.0.0.1/8', /host bits set.*10\.0\.0\.0\/8/],
    ['203.0.113.9/24', /host bits set.*203\.0\.113\.0\/24/],
    ['2001:db8::1/32', /host bits set.*2001:db8::\/32/],
    ['::ffff:0:0/95', /host bits set/], // a mapped range wider than IPv4 space
    ['1.2.3.4/33', /longer than 32/],
    ['2001:db8::/129', /longer than 128/],
    ['1.2.3.4/-1', /whole number/],
    ['1.2.3.4/+8', /whole number/],
    ['1.2.3.4/08', /whole number/],
    ['1.2.3.4/8.0', /whole number/],
    ['1.2.3.4/', /whole number/],
    ['1.2.3.0/24/8', /not an address or CIDR/],
    ['/8', /not an IPv4 or IPv6/],
    ['010.0.0.1', /not an IPv4 or IPv6/], // octal-looking
    ['1.2.3', /not an IPv4 or IPv6/],
    ['1.2.3.256', /not an IPv4 or IPv6/],
    ['0x7f.0.0.1', /not an IPv4 or IPv6/],
    ['2130706433', /not an IPv4 or IPv6/], // 127.0.0.1 as an integer
    ['1.2.3.4:443', /not an IPv4 or IPv6/],
    ['[2001:db8::1]', /not an IPv4 or IPv6/],
    ['fe80::1%eth0', /not an IPv4 or IPv6/],
    ['2001:db8::1::1', /not an IPv4 or IPv6/],
    ['1.2.3.4 5.6.7.8', /not an IPv4 or IPv6/],
    ['localhost', /not an IPv4 or IPv6/],
    ['*', /not an IPv4 or IPv6/],
    ['', /empty/],
    ['   ', /empty/],
    ['1'.repeat(100), /too long/],
    [42, /string/],
    [null, /string/],
  ];
  for (const [input, pattern] of refused) {
    it(`refuses ${JSON.stringify(input)}`, () => {
      const result = normalizeAllowListEntry(input);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.detail, pattern);
    });
  }
});

describe('validateAllowList', () => {
  it('normalises, removes duplicates and keeps order', () => {
    assert.deepEqual(validateAllowList(['203.0.113.9/32', '2001:DB8::/32', '203.0.113.9', '::ffff:203.0.113.9']), {
      entries: ['203.0.113.9', '2001:db8::/32'],
      errors: [],
    });
  });
  it('reports every bad entry by index', () => {
    const result = validateAllowList(['10.0.0.0/8', 'nope', '10.0.0.1/8']);
    assert.deepEqual(result.errors.map((e) => e.index), [1, 2]);
  });
  it('refuses an empty list (that would lock the key out) and an overlong one', () => {
    assert.equal(validateAllowList([]).errors[0]!.index, -1);
    const long = Array.from({ length: MAX_ALLOW_LIST_ENTRIES + 1 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    assert.match(validateAllowList(long).errors[0]!.detail, /at most/);
  });
});

describe('normalizeClientAddress', () => {
  it('turns IPv4-mapped IPv6 into IPv4 and drops zone ids', () => {
    assert.deepEqual(normalizeClientAddress('::ffff:203.0.113.9'), { family: 4, address: '203.0.113.9' });
    assert.deepEqual(normalizeClientAddress('::FFFF:cb00:7109'), { family: 4, address: '203.0.113.9' });
    assert.deepEqual(normalizeClientAddress('fe80::1%eth0'), { family: 6, address: 'fe80::1' });
    assert.deepEqual(normalizeClientAddress('2001:DB8:0::1'), { family: 6, address: '2001:db8::1' });
    assert.equal(normalizeClientAddress('not an ip'), null);
    assert.equal(normalizeClientAddress(''), null);
  });
});

describe('compileAllowList', () => {
  it('null allows any address', () => {
    const allowed = compileAllowList(null);
    assert.ok(allowed('203.0.113.9') && allowed('2001:db8::1') && allowed('whatever'));
  });

  it('matches addresses and ranges of both families, IPv4-mapped clients against IPv4 rules', () => {
    const allowed = compileAllowList(['203.0.113.0/24', '198.51.100.7', '2001:db8::/32', '2001:db8:ffff::1']);
    const cases: Array<[string, boolean]> = [
      ['203.0.113.0', true],
      ['203.0.113.255', true],
      ['203.0.114.0', false],
      ['203.0.112.255', false],
      ['198.51.100.7', true],
      ['198.51.100.8', false],
      ['::ffff:203.0.113.9', true],
      ['::ffff:cb00:7109', true],
      ['::ffff:198.51.100.7', true],
      ['::ffff:198.51.100.8', false],
      ['::203.0.113.9', false], // IPv4-compatible (deprecated) is not IPv4-mapped
      ['2001:db8::1', true],
      ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', true],
      ['2001:db9::', false],
      ['2001:DB8::ABCD', true],
      ['fe80::1%eth0', false],
      ['', false],
      ['garbage', false],
      ['203.0.113.9:443', false],
    ];
    for (const [ip, expected] of cases) assert.equal(allowed(ip), expected, ip);
  });

  it('keeps families apart: ::/0 does not let IPv4 in, 0.0.0.0/0 does not let IPv6 in', () => {
    const v6 = compileAllowList(['::/0']);
    assert.equal(v6('203.0.113.9'), false);
    assert.equal(v6('::ffff:203.0.113.9'), false);
    assert.equal(v6('2001:db8::1'), true);
    const v4 = compileAllowList(['0.0.0.0/0']);
    assert.equal(v4('203.0.113.9'), true);
    assert.equal(v4('::ffff:203.0.113.9'), true);
    assert.equal(v4('2001:db8::1'), false);
  });

  it('mapped entries match plain IPv4 clients', () => {
    const allowed = compileAllowList(['::ffff:203.0.113.0/120']);
    assert.equal(allowed('203.0.113.77'), true);
  });

  it('fails closed: an empty list or invalid stored entries allow nothing', () => {
    assert.equal(compileAllowList([])('203.0.113.9'), false);
    const allowed = compileAllowList(['10.0.0.1/8', 'garbage', '*']);
    assert.equal(allowed('10.1.2.3'), false);
    assert.equal(allowed('10.0.0.1'), false);
  });
});
