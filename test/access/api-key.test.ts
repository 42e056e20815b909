/** The API key format: generation, parsing with checksum, hashing, status (pure; no database). */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateApiKey, hashApiKey, keyChecksum, keyStatus, parseApiKey } from '../../src/domain/access/api-key.ts';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('generateApiKey', () => {
  it('makes live keys svc_ + 32 base62 + 6-character checksum, never starting test_', () => {
    for (let i = 0; i < 200; i++) {
      const { token, prefix, hash } = generateApiKey('live');
      assert.match(token, /^svc_[0-9A-Za-z]{38}$/);
      assert.ok(!token.startsWith('svc_test_'));
      assert.equal(prefix, token.slice(0, 12));
      assert.equal(hash, createHash('sha256').update(token).digest('hex'));
      assert.deepEqual(parseApiKey(token), { mode: 'live', kind: 'secret' });
    }
  });

  it('makes test keys svc_test_ + 32 base62 + checksum, with a 13-character display prefix', () => {
    const { token, prefix } = generateApiKey('test');
    assert.match(token, /^svc_test_[0-9A-Za-z]{38}$/);
    assert.equal(prefix, token.slice(0, 13));
    assert.deepEqual(parseApiKey(token), { mode: 'test', kind: 'secret' });
  });

  it('uses the whole base62 alphabet roughly evenly (no modulo bias, no constant characters)', () => {
    const counts = new Map<string, number>();
    const n = 2000;
    for (let i = 0; i < n; i++) {
      for (const c of generateApiKey('live').token.slice(4, 36)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(counts.size, 62);
    const expected = (n * 32) / 62;
    for (const [c, count] of counts) assert.ok(Math.abs(count - expected) < expected * 0.25, `${c}: ${count} vs ${expected}`);
  });

  it('never repeats a key', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(generateApiKey('live').token);
    assert.equal(seen.size, 5000);
  });
});

describe('parseApiKey', () => {
  const live = generateApiKey('live').token;
  const test = generateApiKey('test').token;

  it('rejects anything that is not a well-formed key with a correct checksum', () => {
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
    const bad: unknown[] = [
      '', 'svc_', 'svc_test_', live.slice(0, -1), live + 'x', live.slice(0, 20), test.slice(0, -6),
      flip(live, 10), flip(live, live.length - 1), flip(test, 15),
      live.replace('svc_', 'svc_test_'), // a live key dressed as a test key: the checksum covers the header
      test.replace('svc_test_', 'svc_'),
      live.toUpperCase(), ` ${live}`, `${live}\n`, `Bearer ${live}`,
      live.replace(/.$/, '_'), live.replace(/^svc_/, 'sk_'),
      'mcp_at_' + 'a'.repeat(40), 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig', // MCP/JWT-like tokens
      'svc_' + 'a'.repeat(10_000), null, undefined, 42, {},
    ];
    for (const token of bad) assert.equal(parseApiKey(token), null, `accepted ${String(token).slice(0, 60)}`);
  });

  it('accepts keys built from any random part with the right checksum', () => {
    const body = 'svc_' + '0'.repeat(32);
    assert.deepEqual(parseApiKey(body + keyChecksum(body)), { mode: 'live', kind: 'secret' });
    const testBody = 'svc_test_' + 'z'.repeat(32);
    assert.deepEqual(parseApiKey(testBody + keyChecksum(testBody)), { mode: 'test', kind: 'secret' });
  });

  it('checksums are six base62 digits, zero-padded', () => {
    for (const body of ['', 'a', 'svc_' + 'Q'.repeat(32)]) {
      const c = keyChecksum(body);
      assert.equal(c.length, 6);
      assert.match(c, BASE62);
    }
    assert.equal(keyChecksum(''), '000000'); // CRC-32 of nothing is 0
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 hex of the whole token', () => {
    assert.equal(hashApiKey('svc_abc'), createHash('sha256').update('svc_abc').digest('hex'));
    assert.match(hashApiKey(generateApiKey('live').token), /^[0-9a-f]{64}$/);
  });
});

describe('keyStatus', () => {
  const now = new Date('2026-11-23T08:00:00Z');
  const base = { revokedAt: null, expiresAt: null, suspension: null };
  const suspension = { by: 'firm' as const, reason: 'x', at: '2026-11-01T00:00:00.000Z' };
  it('reports revoked, then expired, then suspended, else active', () => {
    assert.equal(keyStatus(base, now), 'active');
    assert.equal(keyStatus({ ...base, expiresAt: '2026-11-23T08:00:00.001Z' }, now), 'active');
    assert.equal(keyStatus({ ...base, expiresAt: '2026-11-23T08:00:00.000Z' }, now), 'expired');
    assert.equal(keyStatus({ ...base, suspension }, now), 'suspended');
    assert.equal(keyStatus({ ...base, suspension, expiresAt: '2026-01-01T00:00:00.000Z' }, now), 'expired');
    assert.equal(keyStatus({ revokedAt: '2026-01-01T00:00:00.000Z', suspension, expiresAt: '2026-01-01T00:00:00.000Z' }, now), 'revoked');
  });
});
