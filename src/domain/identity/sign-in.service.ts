/**
 * Email sign-in: a 6-digit code and a link in one email. Signing in creates the account.
 *
 * - The code is valid 10 minutes, for 5 attempts, once; it is stored only as scrypt(code, id):
 *   a stolen row cannot be brute-forced (10^6 candidates × ~50 ms) within its 10 minutes.
 * - The link completes sign-in only in the browser that asked (it holds a secret whose hash is
 *   on the challenge); opened elsewhere — or prefetched by a mail scanner — it asks for the code
 *   and consumes nothing.
 * - No enumeration: starting a sign-in behaves the same for any address, known or not.
 * - Sends and attempts are limited per address and per client address by the shared limiter.
 */
import { createHash, randomBytes, randomInt, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { consumeChallenge, countWrongAttempt, findChallenge, findChallengeByLink, insertChallenge, setUserLocale } from '../../db/repositories/identity.repository.ts';
import type { SignInChallengeTable } from '../../db/schema.ts';
import { messages, type Locale } from '../../i18n/index.ts';
import { AccountsService } from '../access/accounts.service.ts';
import { normalizeEmail } from './email-address.ts';
import { DAY_MS, HOUR_MS } from '../access/limits.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';
import type { MailQueue } from '../notify/outbox.ts';
import { safeReturnTo } from './return-to.ts';
import type { SessionService } from './session.service.ts';

const scryptAsync = promisify(scrypt) as (password: string, salt: string, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;

export const CODE_TTL_MINUTES = 10;
export const MAX_CODE_ATTEMPTS = 5;
const SCRYPT = { N: 16_384, r: 8, p: 1 };

/** The published sign-in limits (docs/site.md). */
export const SIGN_IN_LIMITS = {
  sendsPerEmail: [
    { id: 'hour', limit: 5, windowMs: HOUR_MS },
    { id: 'day', limit: 20, windowMs: DAY_MS },
  ] as readonly WindowRule[],
  sendsPerAddress: [{ id: 'hour', limit: 20, windowMs: HOUR_MS }] as readonly WindowRule[],
  attemptsPerAddress: [{ id: 'hour', limit: 30, windowMs: HOUR_MS }] as readonly WindowRule[],
};

export type SignInResult =
  | { ok: true; user: { id: string; email: string; locale: string | null }; session: { token: string; expiresAt: string }; returnTo: string | null }
  | {
      ok: false;
      reason: 'wrong_code' | 'locked' | 'expired' | 'used' | 'unknown' | 'other_browser';
      attemptsLeft?: number;
      challengeId?: string;
      /** With `other_browser` only: the address the code went to (the link's holder received it). */
      email?: string;
    };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const hashCode = async (code: string, challengeId: string) => (await scryptAsync(code, challengeId, 32, SCRYPT)).toString('hex');

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export interface SignInDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl'>;
  limiter: RateLimitStore;
  mail: MailQueue;
  sessions: SessionService;
  accounts?: AccountsService;
  /** Called when the limiter store fails; the request is then let through, as for the API. */
  onLimiterError?: (err: unknown) => void;
}

export class SignInService {
  private readonly accounts: AccountsService;

  constructor(private readonly deps: SignInDeps) {
    this.accounts = deps.accounts ?? new AccountsService({ database: deps.database, clock: deps.clock });
  }

  private limit(bucket: string, rules: readonly WindowRule[]): Promise<void> {
    return admitOrThrow(this.deps.limiter, bucket, rules, this.deps.clock.now().getTime(), 'Too many sign-in attempts; try again later.', this.deps.onLimiterError);
  }

  /** Emails a code and a link. The same answer for every address (no enumeration). */
  async start(input: { email: string; ip: string; locale: Locale; returnTo: string | null }): Promise<{ challengeId: string; browserSecret: string }> {
    const email = normalizeEmail(input.email);
    // Keys hold hashes, never the address itself.
    await this.limit(`signin:ip:${input.ip}`, SIGN_IN_LIMITS.sendsPerAddress);
    await this.limit(`signin:email:${sha256(email)}`, SIGN_IN_LIMITS.sendsPerEmail);
    const now = this.deps.clock.now();
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const linkToken = randomBytes(32).toString('base64url');
    const browserSecret = randomBytes(32).toString('base64url');
    const row: SignInChallengeTable = {
      id,
      email,
      code_hash: await hashCode(code, id),
      link_hash: sha256(linkToken),
      browser_hash: sha256(browserSecret),
      return_to: safeReturnTo(input.returnTo),
      locale: input.locale,
      attempts: 0,
      client_ip: input.ip,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CODE_TTL_MINUTES * 60_000).toISOString(),
      consumed_at: null,
    };
    const t = messages(input.locale).mail.signIn;
    const link = `${this.deps.config.siteUrl}/sign-in/link/${linkToken}`;
    const ids = await this.deps.database.db.transaction().execute(async (tx) => {
      await insertChallenge(tx, row);
      return this.deps.mail.enqueue(tx, [{ kind: 'sign_in', to: email, subject: t.subject, text: t.body(code, link, CODE_TTL_MINUTES), sensitive: true }]);
    });
    await this.deps.mail.deliver(ids);
    return { challengeId: id, browserSecret };
  }

  /**
   * The browser's own pending sign-in, for the code page: where the code went, where the person
   * is going, and how many more codes this address may be sent this hour. Null unless the browser
   * holds the challenge's secret and the challenge can still be used.
   */
  async pending(input: { challengeId: string; browserSecret: string }): Promise<{ email: string; returnTo: string | null; expiresAt: string; sendsLeft: number; sendsPerHour: number } | null> {
    const challenge = /^[0-9a-f-]{36}$/.test(input.challengeId) ? await findChallenge(this.deps.database.db, input.challengeId) : undefined;
    if (!challenge || this.deadReason(challenge) || !sameHex(sha256(input.browserSecret), challenge.browser_hash)) return null;
    return { email: challenge.email, returnTo: challenge.return_to, expiresAt: challenge.expires_at, ...(await this.sendsLeft(challenge.email)) };
  }

  /** How many more codes the address may be sent in this hour's window (the per-address limit). */
  private async sendsLeft(email: string): Promise<{ sendsLeft: number; sendsPerHour: number }> {
    const hour = SIGN_IN_LIMITS.sendsPerEmail.find((r) => r.id === 'hour')!;
    try {
      const windows = await this.deps.limiter.peek(`signin:email:${sha256(email)}`, SIGN_IN_LIMITS.sendsPerEmail, this.deps.clock.now().getTime());
      return { sendsLeft: Math.max(0, Math.min(...windows.map((w) => w.remaining))), sendsPerHour: hour.limit };
    } catch (err) {
      // The store is down: sends are let through (start), so say the hour's full allowance.
      this.deps.onLimiterError?.(err);
      return { sendsLeft: hour.limit, sendsPerHour: hour.limit };
    }
  }

  /**
   * "Send a new code" from the code page: a new challenge to the same address, for the same
   * return path, under the same limits as `start` (over them: `rate_limited`, and the earlier
   * code keeps working). Only the browser holding the challenge's secret may ask; null otherwise.
   */
  async resend(input: { challengeId: string; browserSecret: string; ip: string; locale: Locale }): Promise<{ challengeId: string; browserSecret: string; email: string } | null> {
    const challenge = /^[0-9a-f-]{36}$/.test(input.challengeId) ? await findChallenge(this.deps.database.db, input.challengeId) : undefined;
    // A used challenge cannot be resent (the person is signed in); an expired or locked one can.
    if (!challenge || challenge.consumed_at !== null || !sameHex(sha256(input.browserSecret), challenge.browser_hash)) return null;
    const started = await this.start({ email: challenge.email, ip: input.ip, locale: input.locale, returnTo: challenge.return_to });
    return { ...started, email: challenge.email };
  }

  /** Checks a typed code against the challenge. */
  async verifyCode(input: { challengeId: string; code: string; ip: string; userAgent?: string }): Promise<SignInResult> {
    await this.limit(`signin:attempt:${input.ip}`, SIGN_IN_LIMITS.attemptsPerAddress);
    const challenge = /^[0-9a-f-]{36}$/.test(input.challengeId) ? await findChallenge(this.deps.database.db, input.challengeId) : undefined;
    if (!challenge) return { ok: false, reason: 'unknown' };
    const dead = this.deadReason(challenge);
    if (dead) return { ok: false, reason: dead, challengeId: challenge.id };
    const digits = input.code.replace(/[\s-]/g, '');
    const right = /^\d{6}$/.test(digits) && sameHex(await hashCode(digits, challenge.id), challenge.code_hash);
    const nowIso = this.deps.clock.now().toISOString();
    if (!right) {
      const used = await countWrongAttempt(this.deps.database.db, challenge.id, nowIso, MAX_CODE_ATTEMPTS);
      if (used === undefined) return { ok: false, reason: (await this.reread(challenge.id)) ?? 'locked', challengeId: challenge.id };
      if (used >= MAX_CODE_ATTEMPTS) return { ok: false, reason: 'locked', attemptsLeft: 0, challengeId: challenge.id };
      return { ok: false, reason: 'wrong_code', attemptsLeft: MAX_CODE_ATTEMPTS - used, challengeId: challenge.id };
    }
    return this.complete(challenge, input);
  }

  /** Completes sign-in from the emailed link, only in the browser that asked. */
  async completeWithLink(input: { token: string; browserSecret: string | undefined; ip: string; userAgent?: string }): Promise<SignInResult> {
    await this.limit(`signin:attempt:${input.ip}`, SIGN_IN_LIMITS.attemptsPerAddress);
    const challenge = /^[A-Za-z0-9_-]{43}$/.test(input.token) ? await findChallengeByLink(this.deps.database.db, sha256(input.token)) : undefined;
    if (!challenge) return { ok: false, reason: 'unknown' };
    const dead = this.deadReason(challenge);
    if (dead) return { ok: false, reason: dead, challengeId: challenge.id };
    // Another browser (or a scanner): ask for the code, and leave the challenge as it was.
    if (!input.browserSecret || !sameHex(sha256(input.browserSecret), challenge.browser_hash)) {
      return { ok: false, reason: 'other_browser', challengeId: challenge.id, attemptsLeft: MAX_CODE_ATTEMPTS - challenge.attempts, email: challenge.email };
    }
    return this.complete(challenge, input);
  }

  private deadReason(c: SignInChallengeTable): 'used' | 'expired' | 'locked' | null {
    if (c.consumed_at !== null) return 'used';
    if (c.expires_at <= this.deps.clock.now().toISOString()) return 'expired';
    if (c.attempts >= MAX_CODE_ATTEMPTS) return 'locked';
    return null;
  }

  private async reread(id: string): Promise<'used' | 'expired' | 'locked' | null> {
    const c = await findChallenge(this.deps.database.db, id);
    return c ? this.deadReason(c) : null;
  }

  /** Consumes the challenge (exactly one concurrent caller wins), then signs in, creating the account. */
  private async complete(challenge: SignInChallengeTable, meta: { ip: string; userAgent?: string }): Promise<SignInResult> {
    const nowIso = this.deps.clock.now().toISOString();
    if (!(await consumeChallenge(this.deps.database.db, challenge.id, nowIso, MAX_CODE_ATTEMPTS))) {
      return { ok: false, reason: (await this.reread(challenge.id)) ?? 'used', challengeId: challenge.id };
    }
    const user = await this.accounts.ensureUser(challenge.email);
    await setUserLocale(this.deps.database.db, user.id, challenge.locale);
    const session = await this.deps.sessions.create(user.id, meta);
    return { ok: true, user: { id: user.id, email: user.email, locale: challenge.locale }, session: { token: session.token, expiresAt: session.expiresAt }, returnTo: challenge.return_to };
  }
}
