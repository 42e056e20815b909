/**
 * Passkeys on both databases, through PasskeysService and over the pages (app.inject). The
 * WebAuthn answers are real: a software authenticator below signs them exactly as the spec says
 * (P-256 ECDSA, CBOR attestation object with fmt "none", authenticator data with flags and a
 * counter), and @simplewebauthn/server verifies them. Chromium's own authenticator drives the same
 * endpoints in test/browser/passkeys.test.ts. Covered here: options (random user handle, resident
 * keys, exclude/allow lists), registration checks (origin, RP, session, freshness, expiry, single
 * use), sign-in (session stepped up, counter forward only, unknown credential, user handle,
 * tampering, limits), step-up (this person's passkeys only), removal (another person's id is
 * not found, an operator keeps one), and the pages' CSRF, origin, return_to and cookies.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PASSKEY_CHALLENGE_TTL_MS, PASSKEY_LIMITS } from '../../src/domain/identity/passkeys.service.ts';
import { sha256 } from '../../src/domain/identity/session.service.ts';
import { requirePasskeyEnrolled } from '../../src/site/guards.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';

const b64url = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');

// ── a minimal CBOR encoder (RFC 8949): what attestation objects and COSE keys need ──
type Cbor = number | string | Uint8Array | Map<number | string, Cbor> | Record<string, never>;
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}
function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

/** A software authenticator: one resident P-256 credential for one RP, with a signature counter. */
class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  userHandle: string | null = null;
  /** The next assertion's counter is counter + step (step 0: an authenticator that keeps none). */
  counter = 0;

  constructor(
    readonly options: { origin: string; rpId: string; step?: number; backup?: boolean } = { origin: 'http://consulta.test', rpId: 'consulta.test' },
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private flags(extra: number): number {
    // UP | UV, backup eligible/state when synced.
    return 0x01 | 0x04 | (this.options.backup ? 0x08 | 0x10 : 0) | extra;
  }

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(this.options.rpId).digest(), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin = this.options.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create's answer to registration options, as RegistrationResponseJSON. */
  create(options: { challenge: string; user: { id: string } }, overrides: { origin?: string } = {}) {
    this.userHandle = options.user.id;
    const cose = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.publicJwk.x, 'base64url')], [-3, Buffer.from(this.publicJwk.y, 'base64url')]]));
    const len = Buffer.alloc(2);
    len.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), len, this.credentialId, cose]);
    const authData = this.authData(this.flags(0x40), this.counter, attested);
    const attestationObject = cbor(new Map<string, Cbor>([['fmt', 'none'], ['attStmt', {}], ['authData', authData]]));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, overrides.origin)), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get's answer, as AuthenticationResponseJSON. */
  get(options: { challenge: string }, overrides: { origin?: string; counter?: number; userHandle?: string; tamper?: boolean } = {}) {
    this.counter = overrides.counter ?? this.counter + (this.options.step ?? 1);
    const authData = this.authData(this.flags(0), this.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const signed = Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = sign('sha256', signed, this.privateKey);
    if (overrides.tamper) signature[signature.length - 1]! ^= 1;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: overrides.userHandle ?? this.userHandle ?? undefined },
      clientExtensionResults: {},
    };
  }
}

for (const target of databaseTargets()) {
  describe(`passkeys (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    before(async () => {
      ctx = await createTestContext(target);
    });
    after(async () => ctx?.close());

    const svc = () => ctx.app.services.passkeys;
    const db = () => ctx.database.db;
    const person = async (options: { operator?: boolean; lang?: 'en' | 'es' } = {}): Promise<SignedIn> => signedIn(ctx, `pk-${++n}-${target.name}@example.com`, options);
    const user = async (p: SignedIn) => ({ id: p.userId, email: p.email, name: null });
    const rows = (userId: string) => db().selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
    const sessionRow = (id: string) => db().selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    /** Registers a software authenticator for the person through the service. */
    async function enrol(p: SignedIn, auth = new SoftAuthenticator(), name = 'Laptop') {
      const options = await svc().registrationOptions(await user(p), p.sessionId);
      assert.ok(options.ok, 'options');
      const result = await svc().register(p.userId, p.sessionId, auth.create(options.options), name);
      assert.ok(result.ok, `registered: ${JSON.stringify(result)}`);
      return { auth, passkey: result.passkey };
    }

    // ── registration ──

    it('registration options: RP from SITE_URL, a random user handle (not the email) kept per person, discoverable keys, UV preferred', async () => {
      const p = await person();
      const a = await svc().registrationOptions(await user(p), p.sessionId);
      const b = await svc().registrationOptions(await user(p), p.sessionId);
      assert.ok(a.ok && b.ok);
      assert.deepEqual(a.options.rp, { name: 'Consulta', id: 'consulta.test' });
      assert.equal(Buffer.from(a.options.user.id, 'base64url').length, 32);
      assert.equal(a.options.user.id, b.options.user.id, 'one handle per person');
      assert.ok(!Buffer.from(a.options.user.id, 'base64url').toString('utf8').includes(p.email));
      assert.equal(a.options.user.name, p.email);
      assert.equal(a.options.authenticatorSelection?.residentKey, 'required');
      assert.equal(a.options.authenticatorSelection?.userVerification, 'preferred');
      assert.equal(a.options.attestation, 'none');
      assert.notEqual(a.options.challenge, b.options.challenge);
      const stored = await db().selectFrom('passkey_challenges').selectAll().where('challenge', '=', a.options.challenge).executeTakeFirstOrThrow();
      assert.deepEqual([stored.purpose, stored.session_id, stored.user_id], ['register', p.sessionId, p.userId]);
      assert.equal(Date.parse(stored.expires_at) - Date.parse(stored.created_at), PASSKEY_CHALLENGE_TTL_MS);
      const other = await person();
      const c = await svc().registrationOptions(await user(other), other.sessionId);
      assert.ok(c.ok);
      assert.notEqual(c.options.user.id, a.options.user.id);
    });

    it('registers a verified passkey (public key, counter, transports, name) and excludes it from the next options', async () => {
      const p = await person();
      const { auth, passkey } = await enrol(p, new SoftAuthenticator({ origin: 'http://consulta.test', rpId: 'consulta.test', backup: true }), '  Work laptop  ');
      const [row] = await rows(p.userId);
      assert.ok(row);
      assert.equal(row.credential_id, auth.id);
      assert.equal(row.name, 'Work laptop');
      assert.deepEqual(JSON.parse(row.transports), ['internal']);
      assert.deepEqual([row.device_type, row.backed_up, row.counter, row.last_used_at], ['multiDevice', 1, 0, null]);
      assert.deepEqual(passkey, { id: row.id, name: 'Work laptop', createdAt: row.created_at, lastUsedAt: null, synced: true, backedUp: true });
      const next = await svc().registrationOptions(await user(p), p.sessionId);
      assert.ok(next.ok);
      assert.deepEqual(next.options.excludeCredentials?.map((c) => c.id), [auth.id]);
      // The same authenticator again (a browser ignoring the exclude list): refused.
      const again = await svc().register(p.userId, p.sessionId, auth.create(next.options), 'x');
      assert.deepEqual(again, { ok: false, reason: 'duplicate' });
      assert.equal((await rows(p.userId)).length, 1);
    });

    it('refuses a registration for another origin or RP, with another session\'s challenge, replayed, or after 5 minutes', async () => {
      const p = await person();
      const u = await user(p);
      const opts = async () => {
        const r = await svc().registrationOptions(u, p.sessionId);
        assert.ok(r.ok);
        return r.options;
      };
      assert.deepEqual(await svc().register(p.userId, p.sessionId, new SoftAuthenticator().create(await opts(), { origin: 'https://evil.example' }), 'x'), { ok: false, reason: 'invalid' });
      assert.deepEqual(await svc().register(p.userId, p.sessionId, new SoftAuthenticator({ origin: 'http://consulta.test', rpId: 'evil.example' }).create(await opts()), 'x'), { ok: false, reason: 'invalid' });
      // Another session of the same person, and another person's session: not theirs to use.
      const second = await ctx.app.services.sessions.create(p.userId, { ip: '127.0.0.1' });
      assert.deepEqual(await svc().register(p.userId, second.id, new SoftAuthenticator().create(await opts()), 'x'), { ok: false, reason: 'expired' });
      const other = await person();
      assert.deepEqual(await svc().register(other.userId, other.sessionId, new SoftAuthenticator().create(await opts()), 'x'), { ok: false, reason: 'expired' });
      // Used once.
      const o = await opts();
      const answer = new SoftAuthenticator().create(o);
      assert.ok((await svc().register(p.userId, p.sessionId, answer, 'x')).ok);
      assert.deepEqual(await svc().register(p.userId, p.sessionId, answer, 'x'), { ok: false, reason: 'expired' });
      // Expired.
      const late = new SoftAuthenticator().create(await opts());
      ctx.clock.advance(PASSKEY_CHALLENGE_TTL_MS);
      assert.deepEqual(await svc().register(p.userId, p.sessionId, late, 'x'), { ok: false, reason: 'expired' });
      // Garbage.
      for (const junk of [null, 'x', {}, { response: { clientDataJSON: 'not base64 json' } }]) {
        assert.deepEqual(await svc().register(p.userId, p.sessionId, junk, 'x'), { ok: false, reason: 'invalid' });
      }
      assert.equal((await rows(p.userId)).length, 1, 'only the one good registration');
    });

    it('adding a passkey needs a sign-in or step-up within 10 minutes', async () => {
      const p = await person();
      const u = await user(p);
      const early = await svc().registrationOptions(u, p.sessionId);
      assert.ok(early.ok);
      ctx.clock.advance(10 * 60_000);
      assert.deepEqual(await svc().registrationOptions(u, p.sessionId), { ok: false, reason: 'not_fresh' });
      // Options fetched while fresh, answered after: refused too (checked at the end of the ceremony).
      assert.deepEqual(await svc().register(p.userId, p.sessionId, new SoftAuthenticator().create(early.options), 'x'), { ok: false, reason: 'expired' });
      await ctx.app.services.sessions.markSteppedUp(p.sessionId);
      assert.ok((await svc().registrationOptions(u, p.sessionId)).ok, 'a step-up makes it fresh again');
    });

    // ── sign-in ──

    it('signs in with a passkey: no allow list, a session that counts as stepped up, the counter and last use recorded', async () => {
      const p = await person();
      const { auth } = await enrol(p);
      const options = await svc().signInOptions('10.0.0.1');
      assert.equal(options.allowCredentials, undefined, 'discoverable: any passkey of ours');
      assert.equal(options.rpId, 'consulta.test');
      ctx.clock.advance(1000);
      const result = await svc().signIn(auth.get(options), { ip: '10.0.0.1', userAgent: 'test' });
      assert.ok(result.ok);
      assert.equal(result.userId, p.userId);
      const session = await sessionRow(result.session.id);
      assert.equal(session.user_id, p.userId);
      assert.equal(session.step_up_at, ctx.clock.now().toISOString());
      assert.equal(session.token_hash, sha256(result.session.token));
      const [row] = await rows(p.userId);
      assert.deepEqual([row!.counter, row!.last_used_at], [1, ctx.clock.now().toISOString()]);
    });

    it('refuses a replayed answer, an unknown credential, a tampered signature, another origin and a foreign user handle', async () => {
      const p = await person();
      const { auth } = await enrol(p);
      const sessionsBefore = async () => (await db().selectFrom('sessions').select('id').where('user_id', '=', p.userId).execute()).length;
      const count = await sessionsBefore();
      const good = auth.get(await svc().signInOptions('10.0.0.2'));
      assert.ok((await svc().signIn(good, { ip: '10.0.0.2' })).ok);
      assert.deepEqual(await svc().signIn(good, { ip: '10.0.0.2' }), { ok: false, reason: 'expired' }, 'replay');
      const stranger = new SoftAuthenticator();
      stranger.userHandle = b64url(randomBytes(32));
      assert.deepEqual(await svc().signIn(stranger.get(await svc().signInOptions('10.0.0.2')), { ip: '10.0.0.2' }), { ok: false, reason: 'unknown_credential' });
      assert.deepEqual(await svc().signIn(auth.get(await svc().signInOptions('10.0.0.2'), { tamper: true }), { ip: '10.0.0.2' }), { ok: false, reason: 'invalid' });
      assert.deepEqual(await svc().signIn(auth.get(await svc().signInOptions('10.0.0.2'), { origin: 'https://evil.example' }), { ip: '10.0.0.2' }), { ok: false, reason: 'invalid' });
      assert.deepEqual(await svc().signIn(auth.get(await svc().signInOptions('10.0.0.2'), { userHandle: b64url(randomBytes(32)) }), { ip: '10.0.0.2' }), { ok: false, reason: 'invalid' });
      // A step-up challenge is not a sign-in challenge.
      const stepUp = await svc().stepUpOptions(p.userId, p.sessionId);
      assert.deepEqual(await svc().signIn(auth.get(stepUp!), { ip: '10.0.0.2' }), { ok: false, reason: 'expired' });
      assert.equal(await sessionsBefore(), count + 1, 'only the one good sign-in opened a session');
    });

    it('refuses a counter that goes back (a cloned authenticator), and accepts authenticators that keep no counter', async () => {
      const p = await person();
      const { auth } = await enrol(p);
      assert.ok((await svc().signIn(auth.get(await svc().signInOptions('10.0.0.3'), { counter: 7 }), { ip: '10.0.0.3' })).ok);
      for (const counter of [7, 3]) {
        assert.deepEqual(await svc().signIn(auth.get(await svc().signInOptions('10.0.0.3'), { counter }), { ip: '10.0.0.3' }), { ok: false, reason: 'counter' }, `counter ${counter}`);
      }
      assert.equal((await rows(p.userId))[0]!.counter, 7, 'unchanged');
      assert.ok((await svc().signIn(auth.get(await svc().signInOptions('10.0.0.3'), { counter: 8 }), { ip: '10.0.0.3' })).ok);
      // Synced passkeys send 0 every time: nothing to compare, each use accepted.
      const q = await person();
      const { auth: synced } = await enrol(q, new SoftAuthenticator({ origin: 'http://consulta.test', rpId: 'consulta.test', step: 0, backup: true }));
      for (let i = 0; i < 2; i++) assert.ok((await svc().signIn(synced.get(await svc().signInOptions('10.0.0.3')), { ip: '10.0.0.3' })).ok);
      assert.equal((await rows(q.userId))[0]!.counter, 0);
    });

    it('limits sign-in attempts and options per client address', async () => {
      const ip = `10.9.${target.name === 'sqlite' ? 1 : 2}.1`;
      const attempts = PASSKEY_LIMITS.attemptsPerAddress[0]!.limit;
      for (let i = 0; i < attempts; i++) assert.deepEqual(await svc().signIn({}, { ip }), { ok: false, reason: 'invalid' });
      await assert.rejects(svc().signIn({}, { ip }), (err: { code?: string; headers?: Record<string, string> }) => err.code === 'rate_limited' && Number(err.headers?.['retry-after']) > 0);
      const optionsLimit = PASSKEY_LIMITS.optionsPerAddress[0]!.limit;
      for (let i = 0; i < optionsLimit; i++) await svc().signInOptions(`${ip}0`);
      await assert.rejects(svc().signInOptions(`${ip}0`), (err: { code?: string }) => err.code === 'rate_limited');
      // Another address is not affected.
      assert.ok(await svc().signInOptions(`${ip}1`));
    });

    // ── step-up ──

    it('step-up asks for this person\'s passkeys only, and marks the session', async () => {
      const p = await person({ operator: true });
      assert.equal(await svc().stepUpOptions(p.userId, p.sessionId), null, 'nothing to ask for without a passkey');
      const { auth } = await enrol(p);
      const other = await person();
      const { auth: theirs } = await enrol(other);
      const options = (await svc().stepUpOptions(p.userId, p.sessionId))!;
      assert.deepEqual(options.allowCredentials?.map((c) => c.id), [auth.id]);
      // Another person's passkey, even a valid assertion: as unknown as no passkey.
      assert.deepEqual(await svc().stepUp(p.userId, p.sessionId, theirs.get(options)), { ok: false, reason: 'unknown_credential' });
      assert.equal((await sessionRow(p.sessionId)).step_up_at, null);
      // Another session's challenge.
      const second = await ctx.app.services.sessions.create(p.userId, { ip: '127.0.0.1' });
      const forSecond = (await svc().stepUpOptions(p.userId, second.id))!;
      assert.deepEqual(await svc().stepUp(p.userId, p.sessionId, auth.get(forSecond)), { ok: false, reason: 'expired' });
      // A sign-in challenge is not a step-up challenge.
      assert.deepEqual(await svc().stepUp(p.userId, p.sessionId, auth.get(await svc().signInOptions('10.0.0.4'))), { ok: false, reason: 'expired' });
      ctx.clock.advance(5000);
      assert.deepEqual(await svc().stepUp(p.userId, p.sessionId, auth.get((await svc().stepUpOptions(p.userId, p.sessionId))!)), { ok: true });
      assert.equal((await sessionRow(p.sessionId)).step_up_at, ctx.clock.now().toISOString());
      assert.equal((await sessionRow(second.id)).step_up_at, null, 'only this session');
    });

    // ── removal ──

    it('removes only one\'s own passkey; an operator keeps their last one', async () => {
      const p = await person();
      const { passkey } = await enrol(p);
      const other = await person();
      await assert.rejects(svc().remove(other.userId, passkey.id), (err: { code?: string }) => err.code === 'not_found');
      await assert.rejects(svc().remove(p.userId, 'not-a-uuid'), (err: { code?: string }) => err.code === 'not_found');
      assert.equal((await rows(p.userId)).length, 1);
      assert.deepEqual(await svc().remove(p.userId, passkey.id), { ok: true }, 'a person who is not an operator may remove their last');
      assert.equal((await rows(p.userId)).length, 0);

      const op = await person({ operator: true });
      const first = await enrol(op);
      assert.deepEqual(await svc().remove(op.userId, first.passkey.id), { ok: false, reason: 'last_operator_passkey' });
      // Two removals at once (two tabs), several times over: one wins, one is refused — never
      // none left.
      let keep = first.passkey.id;
      for (let round = 0; round < 10; round++) {
        const extra = await enrol(op, new SoftAuthenticator(), 'Phone');
        const both = await Promise.all([svc().remove(op.userId, keep), svc().remove(op.userId, extra.passkey.id)]);
        assert.deepEqual(both.map((r) => r.ok).sort(), [false, true], `round ${round}`);
        const left = await rows(op.userId);
        assert.equal(left.length, 1, `round ${round}`);
        keep = left[0]!.id;
      }
    });

    // ── over the pages ──

    /** Registers through the pages' endpoints, as passkeys.js does. */
    async function enrolOverHttp(p: SignedIn, name: string, auth = new SoftAuthenticator()) {
      await p.client.get('/account/passkeys');
      const o = await p.client.post('/account/passkeys/register/options', {}, { accept: 'application/json' });
      assert.equal(o.statusCode, 200, o.body);
      const { options } = o.json() as { options: { challenge: string; user: { id: string } } };
      const r = await p.client.post('/account/passkeys/register', { response: JSON.stringify(auth.create(options)), name }, { accept: 'application/json' });
      return { res: r, auth };
    }

    it('pages: the list, adding through the JSON endpoints (name escaped), and the add form only for a fresh session', async () => {
      const p = await person();
      const signedOut = await ctx.app.fastify.inject({ method: 'GET', url: '/account/passkeys' });
      assert.equal(signedOut.statusCode, 303);
      assert.equal(signedOut.headers.location, '/sign-in?return_to=%2Faccount%2Fpasskeys');
      const empty = await p.client.get('/account/passkeys');
      assert.equal(empty.statusCode, 200);
      assert.match(pageText(empty.body), /You have no passkeys yet/);
      assert.match(empty.body, /<script src="\/assets\/simplewebauthn-browser\.[0-9a-f]{10}\.js" defer/);
      assert.match(empty.body, /<script src="\/assets\/passkeys\.[0-9a-f]{10}\.js" defer/);
      assert.match(pageText(empty.body), /needs JavaScript/);
      const { res } = await enrolOverHttp(p, '<script>alert(1)</script>');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ok: true, redirect: '/account/passkeys?added=1' });
      const listed = await p.client.get('/account/passkeys?added=1');
      assert.match(listed.body, /<h3>&lt;script>alert\(1\)&lt;\/script><\/h3>/, 'escaped: no element, just text');
      assert.ok(!listed.body.includes('<script>alert(1)'));
      assert.match(pageText(listed.body), /Passkey added/);
      // Its times in the service's zone until the browser says its own (Bogotá: GMT-5 all year), then in that one.
      assert.doesNotMatch(pageText(listed.body), /GMT-5/);
      p.client.cookies.set('consulta_tz', encodeURIComponent('America/Bogota'));
      assert.match(pageText((await p.client.get('/account/passkeys')).body), /GMT-5/);
      p.client.cookies.delete('consulta_tz');
      // The bundle is served, hashed and immutable.
      const src = /src="(\/assets\/simplewebauthn-browser\.[0-9a-f]{10}\.js)"/.exec(listed.body)![1]!;
      const bundle = await ctx.app.fastify.inject({ method: 'GET', url: src });
      assert.equal(bundle.statusCode, 200);
      assert.match(bundle.body, /SimpleWebAuthnBrowser/);
      assert.match(bundle.headers['cache-control'] as string, /immutable/);

      // An empty name gets a numbered default in the page's language.
      const es = await person({ lang: 'es' });
      await enrolOverHttp(es, '');
      assert.equal((await rows(es.userId))[0]!.name, 'Llave de acceso 1');

      // Eleven minutes on: no add form, a way to confirm or sign in again instead.
      ctx.clock.advance(11 * 60_000);
      const stale = await p.client.get('/account/passkeys');
      assert.match(pageText(stale.body), /needs a recent sign-in/);
      assert.ok(!stale.body.includes('data-passkey="register"'));
      assert.match(stale.body, /href="\/account\/passkeys\/step-up\?return_to=%2Faccount%2Fpasskeys"/);
      const refused = await p.client.post('/account/passkeys/register/options', {}, { accept: 'application/json' });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error, 'not_fresh');
    });

    it('pages: signing in again from a stale session ends it and returns to the page after sign-in', async () => {
      const p = await person();
      await p.client.get('/account/passkeys');
      const res = await p.client.post('/account/passkeys/reauth', { return_to: '/account/passkeys/step-up?return_to=%2Foperator' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/sign-in?return_to=${encodeURIComponent('/account/passkeys/step-up?return_to=%2Foperator')}`);
      assert.notEqual((await sessionRow(p.sessionId)).revoked_at, null);
      const evil = await person();
      await evil.client.get('/account/passkeys');
      const r2 = await evil.client.post('/account/passkeys/reauth', { return_to: '//evil.example/' });
      assert.equal(r2.headers.location, '/sign-in?return_to=%2Faccount%2Fpasskeys');
    });

    it('pages: passkey sign-in sets the session cookie like the code sign-in, honours a safe return_to only, and never enumerates', async () => {
      const p = await person();
      const { auth } = await enrolOverHttp(p, 'Laptop');
      const anon = (await person()).client;
      anon.cookies.clear();
      await anon.get('/sign-in');
      const signIn = async (returnTo: string, answer?: (o: { challenge: string }) => unknown) => {
        const o = await anon.post('/sign-in/passkey/options', {}, { accept: 'application/json' });
        assert.equal(o.statusCode, 200);
        const { options } = o.json() as { options: { challenge: string; allowCredentials?: unknown } };
        assert.equal(options.allowCredentials, undefined);
        return anon.post('/sign-in/passkey', { response: JSON.stringify((answer ?? ((x) => auth.get(x)))(options)), return_to: returnTo }, { accept: 'application/json' });
      };
      const ok = await signIn('/developer/keys?x=1');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { ok: true, redirect: '/developer/keys?x=1' });
      const cookie = (ok.cookies as Array<{ name: string; value: string; httpOnly?: boolean; sameSite?: string; path?: string; maxAge?: number }>).find((c) => c.name === 'consulta_session');
      assert.ok(cookie);
      assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path, cookie.maxAge], [true, 'Lax', '/', ctx.config.sessionMaxDays * 86_400]);
      const row = await db().selectFrom('sessions').selectAll().where('token_hash', '=', sha256(cookie.value)).executeTakeFirstOrThrow();
      assert.equal(row.user_id, p.userId);
      assert.notEqual(row.step_up_at, null);
      const page = await anon.get('/account/passkeys');
      assert.equal(page.statusCode, 200, 'signed in');

      anon.cookies.delete('consulta_session');
      await anon.get('/sign-in');
      for (const bad of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
        const r = await signIn(bad);
        assert.equal(r.json().redirect, '/consultations', bad);
        anon.cookies.delete('consulta_session');
      }
      // An unknown passkey: a clear message, the same for any credential, no account named.
      const unknown = await signIn('/', (o) => {
        const stranger = new SoftAuthenticator();
        stranger.userHandle = b64url(randomBytes(32));
        return stranger.get(o);
      });
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().error, 'unknown_credential');
      assert.match(unknown.json().message, /not registered with us/);
      assert.ok(!unknown.body.includes('@'));
      assert.equal(anon.cookies.has('consulta_session'), false);
    });

    it('pages: a replayed sign-in answer is refused', async () => {
      const p = await person();
      const { auth } = await enrolOverHttp(p, 'Laptop');
      const anon = (await person()).client;
      anon.cookies.clear();
      await anon.get('/sign-in');
      const { options } = (await anon.post('/sign-in/passkey/options', {})).json() as { options: { challenge: string } };
      const answer = JSON.stringify(auth.get(options));
      assert.equal((await anon.post('/sign-in/passkey', { response: answer })).statusCode, 200);
      const replay = await anon.post('/sign-in/passkey', { response: answer });
      assert.equal(replay.statusCode, 400);
      assert.equal(replay.json().error, 'expired');
    });

    it('pages: cross-origin and token-less POSTs are refused and change nothing', async () => {
      const p = await person();
      const { auth } = await enrolOverHttp(p, 'Laptop');
      const [row] = await rows(p.userId);
      await p.client.get('/account/passkeys');
      const cross = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
      const remove = await p.client.post(`/account/passkeys/${row!.id}/remove`, {}, cross);
      assert.equal(remove.statusCode, 403);
      assert.match(remove.headers['content-type'] as string, /^text\/html/);
      const options = await p.client.post('/sign-in/passkey/options', {}, cross);
      assert.equal(options.statusCode, 403);
      const reg = await p.client.post('/account/passkeys/register/options', {}, { 'sec-fetch-site': 'same-site' });
      assert.equal(reg.statusCode, 403);
      const noToken = await p.client.post(`/account/passkeys/${row!.id}/remove`, { _csrf: 'forged' });
      assert.equal(noToken.statusCode, 403);
      const anon = await ctx.app.fastify.inject({ method: 'POST', url: '/sign-in/passkey', payload: `response=${encodeURIComponent(JSON.stringify(auth.get({ challenge: 'x' })))}`, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test' } });
      assert.equal(anon.statusCode, 403, 'no CSRF token');
      assert.equal((await rows(p.userId)).length, 1);
      assert.equal((await rows(p.userId))[0]!.counter, 0);
    });

    it('pages: removal asks first; another person\'s passkey is a 404 and stays; an operator\'s last one stays with a clear message', async () => {
      const victim = await person();
      await enrolOverHttp(victim, 'Victim key');
      const [theirs] = await rows(victim.userId);
      const attacker = await person();
      await attacker.client.get('/account/passkeys');
      assert.equal((await attacker.client.get(`/account/passkeys/${theirs!.id}/remove`)).statusCode, 404);
      const post = await attacker.client.post(`/account/passkeys/${theirs!.id}/remove`, {});
      assert.equal(post.statusCode, 404);
      assert.match(pageText(post.body), /Page not found/);
      assert.equal((await attacker.client.get('/account/passkeys/nonsense/remove')).statusCode, 404);
      assert.deepEqual(await rows(victim.userId), [theirs]);

      const confirm = await victim.client.get(`/account/passkeys/${theirs!.id}/remove`);
      assert.equal(confirm.statusCode, 200);
      assert.match(pageText(confirm.body), /Remove this passkey\? .*Victim key/);
      const done = await victim.client.post(`/account/passkeys/${theirs!.id}/remove`, {});
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/account/passkeys?removed=1');
      assert.equal((await rows(victim.userId)).length, 0);

      const op = await person({ operator: true });
      await enrolOverHttp(op, 'Only key');
      const [only] = await rows(op.userId);
      await op.client.get(`/account/passkeys/${only!.id}/remove`);
      const refused = await op.client.post(`/account/passkeys/${only!.id}/remove`, {});
      assert.equal(refused.statusCode, 409);
      assert.match(pageText(refused.body), /Operators must have a passkey: add another one before you remove this one/);
      assert.deepEqual(await rows(op.userId), [only]);
    });

    it('pages: the step-up page — signed in only, safe return_to, what it offers with and without a passkey', async () => {
      const out = await ctx.app.fastify.inject({ method: 'GET', url: '/account/passkeys/step-up?return_to=/operator' });
      assert.equal(out.statusCode, 303);
      assert.match(out.headers.location as string, /^\/sign-in\?return_to=/);
      const op = await person({ operator: true });
      const none = await op.client.get('/account/passkeys/step-up?return_to=/operator/keys');
      assert.equal(none.statusCode, 200);
      assert.match(pageText(none.body), /Operators must have a passkey\. Add one now/);
      assert.match(none.body, /data-passkey="register"[^>]*data-then="step-up"/);
      assert.match(none.body, /data-return-to="\/operator\/keys"/);
      const evil = await op.client.get('/account/passkeys/step-up?return_to=//evil.example');
      assert.match(evil.body, /data-return-to="\/account\/passkeys"/);
      await enrolOverHttp(op, 'Key');
      const has = await op.client.get('/account/passkeys/step-up?return_to=/operator/keys');
      assert.match(has.body, /data-passkey="step-up"/);
      assert.match(pageText(has.body), /Use my passkey/);
      const es = await op.client.get('/account/passkeys/step-up?return_to=/operator&lang=es');
      assert.match(pageText(es.body), /Confirma que eres tú/);
      // Stepping up over the endpoints returns to the safe return_to.
      const auth = (await enrolOverHttp(op, 'Second')).auth;
      await op.client.get('/account/passkeys/step-up');
      const { options } = (await op.client.post('/account/passkeys/step-up/options', {})).json() as { options: { challenge: string } };
      const res = await op.client.post('/account/passkeys/step-up', { response: JSON.stringify(auth.get(options)), return_to: '/operator/keys' });
      assert.deepEqual(res.json(), { ok: true, redirect: '/operator/keys' });
      assert.notEqual((await sessionRow(op.sessionId)).step_up_at, null);
      // A stale session without a passkey: sign in again first.
      const stale = await person({ operator: true });
      ctx.clock.advance(11 * 60_000);
      const page = await stale.client.get('/account/passkeys/step-up?return_to=/operator');
      assert.match(pageText(page.body), /needs a recent sign-in/);
      assert.match(page.body, /name="return_to" value="\/account\/passkeys\/step-up\?return_to=%2Foperator"/);
    });

    it('requirePasskeyEnrolled sends an operator without a passkey to the step-up page, and lets one with a passkey through', async () => {
      // The guard over the real service and database; the request and reply are the two fields
      // it reads and the one call it makes (the console's routes are the operator area's).
      const op = await person({ operator: true });
      const request = { site: { user: { id: op.userId, email: op.email, name: null, operator: true }, path: '/operator/keys?q=1' } } as unknown as FastifyRequest;
      let redirected: { status: number; to: string } | null = null;
      const reply = { code: (status: number) => ({ redirect: (to: string) => (redirected = { status, to }) }) } as unknown as FastifyReply;
      assert.equal(await requirePasskeyEnrolled(request, reply, svc()), false);
      assert.deepEqual(redirected, { status: 303, to: `/account/passkeys/step-up?return_to=${encodeURIComponent('/operator/keys?q=1')}` });
      await enrol(op);
      redirected = null;
      assert.equal(await requirePasskeyEnrolled(request, reply, svc()), true);
      assert.equal(redirected, null);
      const signedOut = { site: { user: null, path: '/operator' } } as unknown as FastifyRequest;
      await assert.rejects(requirePasskeyEnrolled(signedOut, reply, svc()), (err: { code?: string }) => err.code === 'not_found');
    });
  });
}
