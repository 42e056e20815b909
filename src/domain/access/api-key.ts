/**
 * The API key format: `svc_` (live) or `svc_test_` (test), 32 random base62 characters, then a
 * 6-character base62 checksum (CRC-32 of everything before it). The checksum lets us — and
 * secret scanners — reject typos, truncations and foreign tokens (MCP access tokens) without a
 * database round trip. Only the SHA-256 of the whole key is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ApiKeyRecord, KeyMode, KeyStatus } from './types.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const LIVE_KEY_PREFIX = 'svc_';
export const TEST_KEY_PREFIX = 'svc_test_';
/** Publishable keys (the booking widget's; docs/widget.md): safe in a page's source. */
export const PUBLISHABLE_LIVE_PREFIX = 'pk_live_';
export const PUBLISHABLE_TEST_PREFIX = 'pk_test_';
export const KEY_RANDOM_LENGTH = 32;
export const KEY_CHECKSUM_LENGTH = 6;
/** Characters of the key shown in listings: the mode header plus a few random characters. */
const DISPLAY_PREFIX_LENGTH: Record<KeyMode, number> = { live: 12, test: 13 };

// Base62 has no `_`, so a live key's random part can never start with `test_`.
const KEY_PATTERN = /^(svc_(?:test_)?|pk_live_|pk_test_)([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
const LONGEST_KEY = TEST_KEY_PREFIX.length + KEY_RANDOM_LENGTH + KEY_CHECKSUM_LENGTH;

/** A secret key (`svc_…`, server to server) or a publishable one (`pk_…`, the widget in a page). */
export type KeyKind = 'secret' | 'publishable';

export interface GeneratedApiKey {
  /** The full secret: shown to its owner once, never stored. */
  token: string;
  /** Safe to display and store. */
  prefix: string;
  /** SHA-256 hex of the token: what the database keeps and looks keys up by. */
  hash: string;
}

/** `length` uniformly distributed base62 characters from the CSPRNG. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling: 248 = 4 × 62, so bytes 0–247 map evenly onto the alphabet and the
    // 8 values above are dropped instead of skewing the first characters (no modulo bias).
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) {
        out += BASE62[byte % 62];
        if (out.length === length) break;
      }
    }
  }
  return out;
}

/** The checksum of a key body (header + random part): CRC-32 as 6 zero-padded base62 digits. */
export function keyChecksum(body: string): string {
  // 62^6 ≈ 5.7e10 > 2^32, so every CRC-32 value fits in six digits.
  let n = crc32(body) >>> 0;
  let out = '';
  for (let i = 0; i < KEY_CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Creates a new key of the given mode (and kind: secret unless asked). */
export function generateApiKey(mode: KeyMode, kind: KeyKind = 'secret'): GeneratedApiKey {
  const header = kind === 'publishable' ? (mode === 'test' ? PUBLISHABLE_TEST_PREFIX : PUBLISHABLE_LIVE_PREFIX) : mode === 'test' ? TEST_KEY_PREFIX : LIVE_KEY_PREFIX;
  const body = header + randomBase62(KEY_RANDOM_LENGTH);
  const token = body + keyChecksum(body);
  // pk_live_ and pk_test_ are the same length: the header plus four random characters.
  const shown = kind === 'publishable' ? header.length + 4 : DISPLAY_PREFIX_LENGTH[mode];
  return { token, prefix: token.slice(0, shown), hash: hashApiKey(token) };
}

/**
 * Whether `token` is a well-formed key with a correct checksum, and its mode; null for anything
 * else (truncated or altered keys, MCP tokens, junk). Pure: never touches the database.
 */
export function parseApiKey(token: unknown): { mode: KeyMode; kind: KeyKind } | null {
  if (typeof token !== 'string' || token.length > LONGEST_KEY) return null;
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  const [, header, random, check] = match as unknown as [string, string, string, string];
  if (keyChecksum(header + random) !== check) return null;
  return {
    mode: header === TEST_KEY_PREFIX || header === PUBLISHABLE_TEST_PREFIX ? 'test' : 'live',
    kind: header.startsWith('pk_') ? 'publishable' : 'secret',
  };
}

/** SHA-256 hex of the full key: the stored form and the lookup key. */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Where a key stands at `now`. Precedence when several apply: revoked, then expired, then
 * suspended — the most permanent condition is the one reported.
 */
export function keyStatus(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt' | 'suspension'>, now: Date): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'expired';
  if (key.suspension !== null) return 'suspended';
  return 'active';
}
