/**
 * Passkeys (WebAuthn, verified with @simplewebauthn/server): add one, sign in with one, prove one
 * again for sensitive operator actions (step-up), list and remove them.
 *
 * - The relying party is the site: rpID = the host of SITE_URL, origin = its origin.
 * - Each person has one random user handle (never their email) shared by their passkeys.
 * - Every ceremony's challenge is stored server-side, single use, for 5 minutes; registration
 *   and step-up challenges belong to the session that asked for them.
 * - Passkeys are discoverable (resident keys required): "Sign in with a passkey" needs no email.
 *   User verification is preferred, not required (a security key without a PIN still works:
 *   holding it is the proof, as holding the mailbox is for the email code).
 * - Signature counters only move forward; a counter that goes back (a cloned authenticator) is
 *   refused. Authenticators that keep no counter (synced passkeys) always send 0.
 * - Adding a passkey creates a lasting way in, so it needs a fresh proof of who is asking: the
 *   session signed in, or stepped up, within the last 10 minutes. Otherwise a stolen session
 *   could add its own passkey and pass every step-up with it.
 * - Registering does not count as a step-up: the step-up page asks for an assertion right after.
 * - Operators must keep at least one passkey: removing their last is refused.
 * - Sign-in options and sign-in attempts are limited per client address (the shared limiter).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  consumePasskeyChallenge,
  countPasskeysOfUser,
  deletePasskey,
  findPasskeyByCredentialId,
  findPasskeyOfUser,
  findSessionTimes,
  findUserHandle,
  insertPasskey,
  insertPasskeyChallenge,
  insertUserHandle,
  isOperator,
  listPasskeysOfUser,
  lockUserHandle,
  purgePasskeyChallenges,
  recordPasskeyUse,
} from '../../db/repositories/passkey.repository.ts';
import type { PasskeyTable } from '../../db/schema.ts';
import { HOUR_MS } from '../access/limits.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';
import { DomainError } from '../errors.ts';
import { exceedsJsonDepth } from '../validation.ts';
import { STEP_UP_WINDOW_MS, type SessionService } from './session.service.ts';

/** How long a ceremony's challenge may be answered. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** How recent a sign-in or step-up must be to add a passkey (the step-up window). */
export const FRESH_SESSION_MS = STEP_UP_WINDOW_MS;
export const RP_NAME = 'Consulta';
export const MAX_PASSKEY_NAME = 60;
/** More passkeys than anyone needs; bounds the options' exclude list. */
export const MAX_PASSKEYS_PER_USER = 20;

/** The published passkey sign-in limits (docs/site.md). */
export const PASSKEY_LIMITS = {
  optionsPerAddress: [{ id: 'hour', limit: 120, windowMs: HOUR_MS }] as readonly WindowRule[],
  attemptsPerAddress: [{ id: 'hour', limit: 30, windowMs: HOUR_MS }] as readonly WindowRule[],
};

/** A passkey as its owner's page shows it (never the key material). */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Synced between devices (a password manager or platform account) rather than bound to one. */
  synced: boolean;
  backedUp: boolean;
}

/** Why a ceremony did not succeed. */
export type PasskeyFailure =
  /** The challenge is unknown, used already, expired, or belongs to another session: start again. */
  | 'expired'
  /** No passkey of ours (or, for step-up, of this person) has that credential id. */
  | 'unknown_credential'
  /** The signature, origin, RP or flags did not verify, or the payload is malformed. */
  | 'invalid'
  /** The authenticator's counter went back: a possible clone. */
  | 'counter'
  /** This authenticator is registered already. */
  | 'duplicate'
  /** Adding a passkey needs a sign-in or step-up within the last 10 minutes. */
  | 'not_fresh'
  | 'too_many';

export type PasskeyResult<T> = ({ ok: true } & T) | { ok: false; reason: PasskeyFailure };

export interface PasskeysDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl'>;
  limiter: RateLimitStore;
  sessions: SessionService;
  /** Called when the limiter store fails; the request is then let through, as for sign-in. */
  onLimiterError?: (err: unknown) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The challenge a browser signed, read from its clientDataJSON (verification checks it again). */
function signedChallenge(response: unknown): string | null {
  if (!isObject(response) || !isObject(response.response) || typeof response.response.clientDataJSON !== 'string') return null;
  try {
    const client = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as unknown;
    return isObject(client) && typeof client.challenge === 'string' && client.challenge.length <= 512 ? client.challenge : null;
  } catch {
    return null;
  }
}

const credentialIdOf = (response: unknown): string | null =>
  isObject(response) && typeof response.id === 'string' && /^[A-Za-z0-9_-]{1,1366}$/.test(response.id) ? response.id : null;

function parseTransports(json: string): string[] {
  try {
    const list = JSON.parse(json) as unknown;
    return Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

const view = (row: PasskeyTable): PasskeyView => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  synced: row.device_type === 'multiDevice',
  backedUp: row.backed_up === 1,
});

/** Parses the browser's answer: a JSON text or an object already parsed. */
export function parseCredentialJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (value.length > 12_000) return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    // As every JSON body: nested too deeply is not an answer (validation.ts, MAX_JSON_DEPTH).
    return exceedsJsonDepth(parsed) ? null : parsed;
  } catch {
    return null;
  }
}

export class PasskeysService {
  /** The relying party id: the site's host name (WebAuthn binds passkeys to it). */
  readonly rpID: string;
  /** The only origin whose ceremonies are accepted. */
  readonly origin: string;

  constructor(private readonly deps: PasskeysDeps) {
    const url = new URL(deps.config.siteUrl);
    this.rpID = url.hostname;
    this.origin = url.origin;
  }

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }

  private limit(bucket: string, rules: readonly WindowRule[]): Promise<void> {
    return admitOrThrow(this.deps.limiter, bucket, rules, this.deps.clock.now().getTime(), 'Too many passkey sign-in attempts; try again later.', this.deps.onLimiterError);
  }

  /** The person's passkeys, oldest first. */
  async list(userId: string): Promise<PasskeyView[]> {
    return (await listPasskeysOfUser(this.deps.database.db, userId)).map(view);
  }

  /** Whether the person has at least one passkey (operators must). */
  async hasPasskey(userId: string): Promise<boolean> {
    return (await countPasskeysOfUser(this.deps.database.db, userId)) > 0;
  }

  /** One passkey of this person; someone else's id is not found. */
  async get(userId: string, id: string): Promise<PasskeyView> {
    const row = /^[0-9a-f-]{36}$/.test(id) ? await findPasskeyOfUser(this.deps.database.db, userId, id) : undefined;
    if (!row) throw new DomainError('not_found', 'no such passkey');
    return view(row);
  }

  /**
   * Whether this session may add a passkey now: it signed in, or proved a passkey, within the
   * last 10 minutes (FRESH_SESSION_MS).
   */
  async sessionIsFresh(sessionId: string): Promise<boolean> {
    const times = await findSessionTimes(this.deps.database.db, sessionId);
    if (!times) return false;
    const nowMs = this.deps.clock.now().getTime();
    const recent = (iso: string | null) => iso !== null && nowMs - Date.parse(iso) < FRESH_SESSION_MS;
    return recent(times.created_at) || recent(times.step_up_at);
  }

  private async newChallenge(purpose: 'register' | 'sign_in' | 'step_up', bound: { sessionId: string | null; userId: string | null }): Promise<string> {
    const now = this.deps.clock.now();
    const challenge = randomBytes(32).toString('base64url');
    const db = this.deps.database.db;
    // Anonymous sign-in pages ask for a challenge on every view: old ones go as new ones come.
    await purgePasskeyChallenges(db, new Date(now.getTime() - HOUR_MS).toISOString(), 100);
    await insertPasskeyChallenge(db, {
      id: randomUUID(),
      challenge,
      purpose,
      session_id: bound.sessionId,
      user_id: bound.userId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS).toISOString(),
      consumed_at: null,
    });
    return challenge;
  }

  /** This person's user handle, created on first use (random bytes, never the email). */
  private async userHandle(userId: string): Promise<string> {
    const db = this.deps.database.db;
    const existing = await findUserHandle(db, userId);
    if (existing) return existing;
    await insertUserHandle(db, { user_id: userId, handle: randomBytes(32).toString('base64url'), created_at: this.nowIso() });
    return (await findUserHandle(db, userId))!;
  }

  /**
   * Options for adding a passkey (navigator.credentials.create), bound to this session. Null
   * when the session is not fresh enough (see sessionIsFresh) or the person has the maximum.
   */
  async registrationOptions(
    user: { id: string; email: string; name: string | null },
    sessionId: string,
  ): Promise<PasskeyResult<{ options: PublicKeyCredentialCreationOptionsJSON }>> {
    if (!(await this.sessionIsFresh(sessionId))) return { ok: false, reason: 'not_fresh' };
    const existing = await listPasskeysOfUser(this.deps.database.db, user.id);
    if (existing.length >= MAX_PASSKEYS_PER_USER) return { ok: false, reason: 'too_many' };
    const handle = await this.userHandle(user.id);
    const challenge = await this.newChallenge('register', { sessionId, userId: user.id });
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: this.rpID,
      userName: user.email,
      userDisplayName: user.name ?? user.email,
      userID: new Uint8Array(Buffer.from(handle, 'base64url')),
      challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: parseTransports(p.transports) })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    });
    return { ok: true, options };
  }

  /** Verifies the browser's answer to registrationOptions and stores the passkey. */
  async register(userId: string, sessionId: string, response: unknown, name: string): Promise<PasskeyResult<{ passkey: PasskeyView }>> {
    const db = this.deps.database.db;
    const challenge = signedChallenge(response);
    if (!challenge) return { ok: false, reason: 'invalid' };
    const row = await consumePasskeyChallenge(db, { challenge, purpose: 'register', sessionId }, this.nowIso());
    if (!row || row.user_id !== userId) return { ok: false, reason: 'expired' };
    // Checked again at the end of the ceremony: the session may have aged during it.
    if (!(await this.sessionIsFresh(sessionId))) return { ok: false, reason: 'not_fresh' };
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: row.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        requireUserVerification: false,
      });
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (!verified.verified) return { ok: false, reason: 'invalid' };
    const info = verified.registrationInfo;
    if (await findPasskeyByCredentialId(db, info.credential.id)) return { ok: false, reason: 'duplicate' };
    const passkey: PasskeyTable = {
      id: randomUUID(),
      user_id: userId,
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: JSON.stringify(info.credential.transports ?? []),
      name: name.trim().slice(0, MAX_PASSKEY_NAME) || 'Passkey',
      device_type: info.credentialDeviceType,
      backed_up: info.credentialBackedUp ? 1 : 0,
      created_at: this.nowIso(),
      last_used_at: null,
    };
    try {
      await insertPasskey(db, passkey);
    } catch (err) {
      // Two tabs registering the same authenticator at once: the unique credential id decides.
      if (await findPasskeyByCredentialId(db, info.credential.id)) return { ok: false, reason: 'duplicate' };
      throw err;
    }
    return { ok: true, passkey: view(passkey) };
  }

  /** Options for "Sign in with a passkey" and the sign-in form's autofill: any passkey of ours. */
  async signInOptions(ip: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    await this.limit(`passkey:options:${ip}`, PASSKEY_LIMITS.optionsPerAddress);
    const challenge = await this.newChallenge('sign_in', { sessionId: null, userId: null });
    return generateAuthenticationOptions({ rpID: this.rpID, challenge: new Uint8Array(Buffer.from(challenge, 'base64url')), timeout: PASSKEY_CHALLENGE_TTL_MS, userVerification: 'preferred' });
  }

  /**
   * Verifies a sign-in assertion and opens a session that counts as stepped up. An unknown
   * credential and a bad signature say nothing about which accounts exist.
   */
  async signIn(response: unknown, meta: { ip: string; userAgent?: string }): Promise<PasskeyResult<{ userId: string; session: { id: string; token: string; expiresAt: string } }>> {
    await this.limit(`passkey:attempt:${meta.ip}`, PASSKEY_LIMITS.attemptsPerAddress);
    const checked = await this.verifyAssertion(response, 'sign_in', null, null);
    if (!checked.ok) return checked;
    const session = await this.deps.sessions.create(checked.userId, { ip: meta.ip, userAgent: meta.userAgent, passkey: true });
    return { ok: true, userId: checked.userId, session };
  }

  /**
   * Options for a step-up: an assertion with one of THIS person's passkeys, bound to the
   * session. Null when they have none (they must add one first).
   */
  async stepUpOptions(userId: string, sessionId: string): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
    const mine = await listPasskeysOfUser(this.deps.database.db, userId);
    if (mine.length === 0) return null;
    const challenge = await this.newChallenge('step_up', { sessionId, userId });
    return generateAuthenticationOptions({
      rpID: this.rpID,
      challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      userVerification: 'preferred',
      allowCredentials: mine.map((p) => ({ id: p.credential_id, transports: parseTransports(p.transports) })),
    });
  }

  /** Verifies a step-up assertion and marks the session as having just proved a passkey. */
  async stepUp(userId: string, sessionId: string, response: unknown): Promise<PasskeyResult<object>> {
    const checked = await this.verifyAssertion(response, 'step_up', sessionId, userId);
    if (!checked.ok) return checked;
    await this.deps.sessions.markSteppedUp(sessionId);
    return { ok: true };
  }

  /** The shared half of sign-in and step-up: challenge used once, signature, counter. */
  private async verifyAssertion(response: unknown, purpose: 'sign_in' | 'step_up', sessionId: string | null, userId: string | null): Promise<PasskeyResult<{ userId: string }>> {
    const db = this.deps.database.db;
    const challenge = signedChallenge(response);
    const credentialId = credentialIdOf(response);
    if (!challenge || !credentialId) return { ok: false, reason: 'invalid' };
    const row = await consumePasskeyChallenge(db, { challenge, purpose, sessionId }, this.nowIso());
    if (!row || row.user_id !== userId) return { ok: false, reason: 'expired' };
    const passkey = await findPasskeyByCredentialId(db, credentialId);
    // For a step-up, someone else's passkey is as unknown as no passkey.
    if (!passkey || (userId !== null && passkey.user_id !== userId)) return { ok: false, reason: 'unknown_credential' };
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: row.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: passkey.counter, transports: parseTransports(passkey.transports) },
        requireUserVerification: false,
      });
    } catch (err) {
      if (err instanceof Error && /counter/i.test(err.message)) return { ok: false, reason: 'counter' };
      return { ok: false, reason: 'invalid' };
    }
    if (!verified.verified) return { ok: false, reason: 'invalid' };
    // The user handle, when the authenticator sends it, must be this passkey's owner's.
    const handle = isObject(response) && isObject(response.response) ? response.response.userHandle : undefined;
    if (typeof handle === 'string' && handle !== '' && handle !== (await findUserHandle(db, passkey.user_id))) return { ok: false, reason: 'invalid' };
    const info = verified.authenticationInfo;
    const moved = await recordPasskeyUse(db, passkey.id, { counter: info.newCounter, previous: passkey.counter, backedUp: info.credentialBackedUp, nowIso: this.nowIso() });
    if (!moved) return { ok: false, reason: 'counter' };
    return { ok: true, userId: passkey.user_id };
  }

  /**
   * Removes one of the person's passkeys. Someone else's id is not found (nothing changes). An
   * operator's last passkey stays: `last_operator_passkey` (operators must have one).
   */
  async remove(userId: string, id: string): Promise<{ ok: true } | { ok: false; reason: 'last_operator_passkey' }> {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new DomainError('not_found', 'no such passkey');
    return this.deps.database.db.transaction().execute(async (tx) => {
      // One removal at a time per person: two tabs cannot each remove "not the last" one.
      await lockUserHandle(tx, this.deps.database.dialect, userId);
      if (!(await findPasskeyOfUser(tx, userId, id))) throw new DomainError('not_found', 'no such passkey');
      if ((await countPasskeysOfUser(tx, userId)) <= 1 && (await isOperator(tx, userId))) return { ok: false as const, reason: 'last_operator_passkey' as const };
      await deletePasskey(tx, userId, id);
      return { ok: true as const };
    });
  }
}
