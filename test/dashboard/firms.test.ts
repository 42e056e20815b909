/**
 * The firm pages over the real app and database (both): creating a firm (the creator owns it),
 * managing members by role (the page's 403 and the domain's refusal), the last owner, permissions
 * that open the firm's keys, invitations by email from the form to the outbox to sign-in and
 * acceptance (and every way an invitation stops working), the "key creator left" notifications,
 * CSRF, and Spanish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { invitationRows, invitationToken, OPERATOR } from '../support/firms.ts';
import { pageText, SiteClient } from '../support/site.ts';

const DAY_MS = 86_400_000;

for (const target of databaseTargets()) {
  describe(`firm pages (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    before(async () => {
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0 } });
    });
    after(async () => ctx?.close());

    const unique = (label: string) => `${label}-${++n}`;
    const user = (s: SignedIn): Actor => ({ type: 'user', userId: s.userId });

    /** A firm created through the form by `owner`, with an admin and a member added by the operator. */
    async function team(label: string) {
      const slug = unique(label);
      const owner = await signedIn(ctx, `owner@${slug}.example`);
      const admin = await signedIn(ctx, `admin@${slug}.example`);
      const member = await signedIn(ctx, `member@${slug}.example`);
      await owner.client.get('/firms');
      const created = await owner.client.post('/firms', { name: `Bufete ${slug}`, slug });
      assert.equal(created.statusCode, 303, pageText(created.body).slice(0, 300));
      await ctx.app.services.accounts.addMember(OPERATOR, slug, admin.email, 'admin');
      await ctx.app.services.accounts.addMember(OPERATOR, slug, member.email, 'member');
      return { slug, owner, admin, member };
    }

    const roleOf = async (slug: string, email: string) => (await ctx.app.services.accounts.listMembers(OPERATOR, slug)).find((m) => m.email === email);

    it('creates a firm: the creator becomes its owner and sees it on /firms', async () => {
      const me = await signedIn(ctx, 'founder@example.com');
      await me.client.get('/firms');
      const res = await me.client.post('/firms', { name: 'Bufete Sol', slug: `bufete-sol-${target.name}` });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/firms/bufete-sol-${target.name}?done=created`);
      const overview = pageText((await me.client.get(res.headers.location as string)).body);
      assert.match(overview, /Bufete Sol is created, and you are its owner/);
      assert.match(overview, /Your role Owner/);
      assert.equal((await roleOf(`bufete-sol-${target.name}`, 'founder@example.com'))?.role, 'owner');
      const list = pageText((await me.client.get('/firms')).body);
      assert.match(list, /Bufete Sol .*Your role Owner/);
    });

    it('refuses a bad or taken short name and an empty name, next to the field (400), and creates nothing', async () => {
      const me = await signedIn(ctx, 'typo@example.com');
      await me.client.get('/firms');
      const bad = await me.client.post('/firms', { name: '', slug: 'Bad Slug!' });
      assert.equal(bad.statusCode, 400);
      const text = pageText(bad.body);
      assert.match(text, /Enter the firm’s name/);
      assert.match(text, /Use 2–63 lower-case letters/);
      assert.match(bad.body, /value="Bad Slug!"/, 'the form keeps what was typed');
      const reserved = await me.client.post('/firms', { name: 'X', slug: 'invitations' });
      assert.equal(reserved.statusCode, 400);
      assert.match(pageText(reserved.body), /reserved/);
      const slug = unique('taken');
      await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'First', ownerEmail: 'first@example.com' });
      const taken = await me.client.post('/firms', { name: 'Second', slug });
      assert.equal(taken.statusCode, 400);
      assert.match(pageText(taken.body), /already exists/);
      assert.deepEqual(await ctx.app.services.accounts.listMyFirms(user(me)), []);
    });

    it('signed out: the firm pages send the person to sign in and come back', async () => {
      const anon = new SiteClient(ctx.app.fastify);
      const res = await anon.get('/firms/anything/members');
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/sign-in?return_to=${encodeURIComponent('/firms/anything/members')}`);
    });

    it('an admin manages members; a member cannot (403 page, and the domain refuses too)', async () => {
      const { slug, admin, member } = await team('roles');
      const extra = await signedIn(ctx, `extra@${slug}.example`);
      await ctx.app.services.accounts.addMember(OPERATOR, slug, extra.email, 'member');

      // The admin: permissions and removal of members, but no role changes (owners only).
      const page = await admin.client.get(`/firms/${slug}/members`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(`action="/firms/${slug}/members/${member.userId}/permissions"`));
      assert.doesNotMatch(page.body, /\/role"/, 'no role form for an admin');
      const granted = await admin.client.post(`/firms/${slug}/members/${member.userId}/permissions`, { permissions: 'usage:read' });
      assert.equal(granted.statusCode, 303);
      assert.deepEqual((await roleOf(slug, member.email))?.permissions, ['usage:read']);
      const promote = await admin.client.post(`/firms/${slug}/members/${member.userId}/role`, { role: 'admin' });
      assert.equal(promote.statusCode, 403);
      assert.equal((await roleOf(slug, member.email))?.role, 'member');
      assert.equal((await admin.client.get(`/firms/${slug}/members/${extra.userId}/remove`)).statusCode, 200);
      const removed = await admin.client.post(`/firms/${slug}/members/${extra.userId}/remove`, {});
      assert.equal(removed.statusCode, 303);
      assert.equal(await roleOf(slug, extra.email), undefined);

      // The member: sees the list, changes nothing.
      const seen = await member.client.get(`/firms/${slug}/members`);
      assert.equal(seen.statusCode, 200);
      assert.doesNotMatch(seen.body, /\/permissions"|\/remove"|\/invitations"/, 'no management forms for a member');
      for (const [url, form] of [
        [`/firms/${slug}/members/${admin.userId}/permissions`, { permissions: 'keys:manage' }],
        [`/firms/${slug}/members/${member.userId}/permissions`, { permissions: 'keys:manage' }],
        [`/firms/${slug}/members/${admin.userId}/remove`, {}],
        [`/firms/${slug}/members/${admin.userId}/role`, { role: 'member' }],
        [`/firms/${slug}/invitations`, { email: 'friend@example.com', role: 'member' }],
      ] as const) {
        const res = await member.client.post(url, form);
        assert.equal(res.statusCode, 403, url);
        assert.match(pageText(res.body), /You do not have permission for this/);
      }
      assert.equal((await member.client.get(`/firms/${slug}/members/${admin.userId}/remove`)).statusCode, 403);
      await assert.rejects(ctx.app.services.accounts.setPermissions(user(member), slug, member.email, ['keys:manage']), { code: 'forbidden' });
      await assert.rejects(ctx.app.services.accounts.removeMember(user(member), slug, admin.email), { code: 'forbidden' });
      assert.deepEqual((await roleOf(slug, member.email))?.permissions, ['usage:read'], 'unchanged');
      assert.equal((await roleOf(slug, admin.email))?.role, 'admin', 'unchanged');
    });

    it('an owner changes roles; the last owner can neither be demoted nor leave', async () => {
      const { slug, owner, admin } = await team('owners');
      await owner.client.get(`/firms/${slug}/members`);
      const demoteSelf = await owner.client.post(`/firms/${slug}/members/${owner.userId}/role`, { role: 'admin' });
      assert.equal(demoteSelf.statusCode, 409);
      assert.match(pageText(demoteSelf.body), /A firm needs at least one owner/);
      await owner.client.get(`/firms/${slug}/leave`);
      const leave = await owner.client.post(`/firms/${slug}/leave`, {});
      assert.equal(leave.statusCode, 409);
      assert.match(pageText(leave.body), /A firm needs at least one owner/);
      assert.equal((await roleOf(slug, owner.email))?.role, 'owner');
      await assert.rejects(ctx.app.services.accounts.removeMember(OPERATOR, slug, owner.email), { code: 'conflict' });

      // Make the admin an owner; now the first owner may leave.
      await owner.client.get(`/firms/${slug}/members`);
      assert.equal((await owner.client.post(`/firms/${slug}/members/${admin.userId}/role`, { role: 'owner' })).statusCode, 303);
      assert.equal((await roleOf(slug, admin.email))?.role, 'owner');
      await owner.client.get(`/firms/${slug}/leave`);
      const left = await owner.client.post(`/firms/${slug}/leave`, {});
      assert.equal(left.statusCode, 303);
      assert.equal(left.headers.location, '/firms?done=left');
      assert.equal(await roleOf(slug, owner.email), undefined);
      assert.equal((await owner.client.get(`/firms/${slug}`)).statusCode, 404, 'no longer a member: not found');
    });

    it('keys:manage granted on the members page opens the firm keys to a member; withdrawn, 403 again', async () => {
      const { slug, admin, member } = await team('perms');
      assert.equal((await member.client.get(`/firms/${slug}/keys`)).statusCode, 403);
      await admin.client.get(`/firms/${slug}/members`);
      assert.equal((await admin.client.post(`/firms/${slug}/members/${member.userId}/permissions`, { permissions: 'keys:manage' })).statusCode, 303);
      assert.equal((await member.client.get(`/firms/${slug}/keys`)).statusCode, 200);
      assert.match(pageText((await member.client.get(`/firms/${slug}`)).body), /Manage the firm’s API keys/);
      await admin.client.get(`/firms/${slug}/members`);
      // No box ticked: the browser sends no `permissions` field at all.
      assert.equal((await admin.client.post(`/firms/${slug}/members/${member.userId}/permissions`, {})).statusCode, 303);
      const refused = await member.client.get(`/firms/${slug}/keys`);
      assert.equal(refused.statusCode, 403);
      await assert.rejects(ctx.app.services.keys.list(user(member), { firmSlug: slug }), { code: 'forbidden' });
    });

    /** Signs a fresh browser in through the emailed code, starting from `returnTo`. */
    async function signInThroughEmail(email: string, returnTo: string, lang: 'en' | 'es' = 'en') {
      const browser = new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'accept-language': lang });
      const opened = await browser.get(returnTo);
      assert.equal(opened.statusCode, 303, 'signed out: sent to sign in');
      const signInUrl = opened.headers.location as string;
      assert.equal(signInUrl, `/sign-in?return_to=${encodeURIComponent(returnTo)}`);
      await browser.get(signInUrl);
      assert.equal((await browser.post('/sign-in', { email, return_to: returnTo })).statusCode, 303);
      await browser.get('/sign-in/code');
      const mail = await ctx.app.services.mail.last(email);
      const code = /\b(\d{6})\b/.exec(mail?.text ?? '')![1]!;
      const done = await browser.post('/sign-in/code', { code });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, returnTo, 'back to the invitation after sign-in');
      return browser;
    }

    it('invitation: the form emails a link; the invitee signs in, accepts and is a member; the link works once', async () => {
      const { slug, admin } = await team('invite');
      const invitee = `New.Person@${slug}.example`;
      await admin.client.get(`/firms/${slug}/members`);
      const sent = await admin.client.post(`/firms/${slug}/invitations`, { email: invitee, role: 'member', permissions: 'keys:manage' });
      assert.equal(sent.statusCode, 303);
      assert.equal(sent.headers.location, `/firms/${slug}/members?done=invited`);
      const members = pageText((await admin.client.get(sent.headers.location as string)).body);
      assert.match(members, /Invitation sent/);
      assert.match(members, new RegExp(`Pending invitations new\\.person@${slug}\\.example Member Permissions Manage the firm’s API keys Invited by admin@${slug}\\.example`));

      // The email, in the outbox: to the address, naming the sender and the firm, with the link.
      const mail = await ctx.app.services.mail.last(invitee.toLowerCase());
      assert.equal(mail?.kind, 'firm_invitation');
      assert.equal(mail?.subject, `admin@${slug}.example invited you to Bufete ${slug} on Consulta`);
      assert.match(mail!.text, /as: Member/);
      assert.match(mail!.text, /Manage the firm’s API keys/);
      assert.match(mail!.text, /http:\/\/consulta\.test\/firms\/invitations\/[A-Za-z0-9_-]{43}/);
      const token = await invitationToken(ctx.app, invitee);
      const stored = await invitationRows(ctx.database, slug);
      assert.equal(stored.length, 1);
      assert.ok(!JSON.stringify(stored).includes(token), 'only the hash of the token is stored');

      const browser = await signInThroughEmail(invitee.toLowerCase(), `/firms/invitations/${token}`);
      const open = await browser.get(`/firms/invitations/${token}`);
      assert.equal(open.statusCode, 200);
      assert.match(pageText(open.body), new RegExp(`admin@${slug}\\.example invited you to join Bufete ${slug}\\. Your role: Member\\.`));
      const accepted = await browser.post(`/firms/invitations/${token}/accept`, {});
      assert.equal(accepted.statusCode, 303);
      assert.equal(accepted.headers.location, `/firms/${slug}?done=joined`);
      assert.match(pageText((await browser.get(accepted.headers.location as string)).body), /Welcome to Bufete/);
      const joined = await roleOf(slug, invitee.toLowerCase());
      assert.equal(joined?.role, 'member');
      assert.deepEqual(joined?.permissions, ['keys:manage']);
      assert.equal((await browser.get(`/firms/${slug}/keys`)).statusCode, 200, 'the granted permission works');

      // Used once.
      const again = await browser.post(`/firms/invitations/${token}/accept`, {});
      assert.equal(again.statusCode, 410);
      assert.match(pageText(again.body), /already been used/);
      assert.doesNotMatch(pageText((await admin.client.get(`/firms/${slug}/members`)).body), /Pending invitations new\.person/, 'no longer pending');
    });

    it('invitation opened by another account: refused, naming only the address it was sent to', async () => {
      const { slug, owner } = await team('wrong');
      await owner.client.get(`/firms/${slug}/members`);
      await owner.client.post(`/firms/${slug}/invitations`, { email: `right@${slug}.example`, role: 'admin' });
      const token = await invitationToken(ctx.app, `right@${slug}.example`);
      const stranger = await signedIn(ctx, `stranger@${slug}.example`);
      const page = await stranger.client.get(`/firms/invitations/${token}`);
      assert.equal(page.statusCode, 403);
      const text = pageText(page.body);
      assert.match(text, new RegExp(`This invitation was sent to right@${slug}\\.example\\. You are signed in as stranger@${slug}\\.example`));
      assert.doesNotMatch(text, new RegExp(`Bufete|${owner.email}|Administrator`), 'nothing about the firm or the role');
      const accept = await stranger.client.post(`/firms/invitations/${token}/accept`, {});
      assert.equal(accept.statusCode, 403);
      assert.equal(await roleOf(slug, stranger.email), undefined);
      assert.equal((await invitationRows(ctx.database, slug))[0]?.accepted_at, null, 'still pending');
      // A made-up token is simply not found.
      assert.equal((await stranger.client.get(`/firms/invitations/${'x'.repeat(43)}`)).statusCode, 404);
    });

    it('an expired invitation (7 days, on the injected clock) is refused', async () => {
      const { slug, admin } = await team('expire');
      await admin.client.get(`/firms/${slug}/members`);
      await admin.client.post(`/firms/${slug}/invitations`, { email: `late@${slug}.example`, role: 'member' });
      const token = await invitationToken(ctx.app, `late@${slug}.example`);
      const late = await signedIn(ctx, `late@${slug}.example`);
      ctx.clock.advance(7 * DAY_MS - 1000);
      assert.equal((await late.client.get(`/firms/invitations/${token}`)).statusCode, 200, 'still valid just before');
      ctx.clock.advance(1000);
      try {
        const page = await late.client.get(`/firms/invitations/${token}`);
        assert.equal(page.statusCode, 410);
        assert.match(pageText(page.body), /has expired/);
        assert.equal((await late.client.post(`/firms/invitations/${token}/accept`, {})).statusCode, 410);
        assert.equal(await roleOf(slug, late.email), undefined);
        assert.doesNotMatch(pageText((await admin.client.get(`/firms/${slug}/members`)).body), /late@/, 'no longer listed as pending');
      } finally {
        ctx.clock.advance(-7 * DAY_MS);
      }
    });

    it('a revoked invitation, and one replaced by a new invitation, are refused', async () => {
      const { slug, owner } = await team('revoke');
      const email = `maybe@${slug}.example`;
      await owner.client.get(`/firms/${slug}/members`);
      await owner.client.post(`/firms/${slug}/invitations`, { email, role: 'member' });
      const first = await invitationToken(ctx.app, email);
      const again = await owner.client.post(`/firms/${slug}/invitations`, { email, role: 'admin' });
      assert.equal(again.headers.location, `/firms/${slug}/members?done=reinvited`);
      const second = await invitationToken(ctx.app, email);
      assert.notEqual(first, second);
      const invitee = await signedIn(ctx, email);
      const replaced = await invitee.client.get(`/firms/invitations/${first}`);
      assert.equal(replaced.statusCode, 410);
      assert.match(pageText(replaced.body), /withdrawn/);

      const page = await owner.client.get(`/firms/${slug}/members`);
      const id = new RegExp(`action="/firms/${slug}/invitations/([0-9a-f-]{36})/revoke"`).exec(page.body)![1]!;
      const revoked = await owner.client.post(`/firms/${slug}/invitations/${id}/revoke`, {});
      assert.equal(revoked.statusCode, 303);
      assert.match(pageText((await owner.client.get(revoked.headers.location as string)).body), /The invitation is revoked/);
      assert.equal((await invitee.client.get(`/firms/invitations/${second}`)).statusCode, 410);
      assert.equal((await invitee.client.post(`/firms/invitations/${second}/accept`, {})).statusCode, 410);
      assert.equal(await roleOf(slug, email), undefined);
    });

    it('invitation rules: admins invite members only, members not at all; bad or existing addresses are explained', async () => {
      const { slug, admin, member } = await team('rules');
      const page = await admin.client.get(`/firms/${slug}/members`);
      assert.match(page.body, /<option value="member"/);
      assert.doesNotMatch(page.body, /<option value="owner"/, 'an admin is not offered owner');
      const owner = await admin.client.post(`/firms/${slug}/invitations`, { email: 'boss@example.com', role: 'owner' });
      assert.equal(owner.statusCode, 403);
      const bad = await admin.client.post(`/firms/${slug}/invitations`, { email: 'not-an-address', role: 'member' });
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /Enter an email address/);
      assert.match(bad.body, /value="not-an-address"/);
      const existing = await admin.client.post(`/firms/${slug}/invitations`, { email: member.email, role: 'member' });
      assert.equal(existing.statusCode, 400);
      assert.match(pageText(existing.body), /already a member/);
      assert.deepEqual(await invitationRows(ctx.database, slug), []);
    });

    it('an invitation stops working when its sender may no longer grant it (they left the firm)', async () => {
      const { slug, owner, admin } = await team('sender');
      await admin.client.get(`/firms/${slug}/members`);
      await admin.client.post(`/firms/${slug}/invitations`, { email: `pending@${slug}.example`, role: 'member' });
      const token = await invitationToken(ctx.app, `pending@${slug}.example`);
      await ctx.app.services.accounts.removeMember(user(owner), slug, admin.email);
      const invitee = await signedIn(ctx, `pending@${slug}.example`);
      await invitee.client.get(`/firms/invitations/${token}`);
      const accept = await invitee.client.post(`/firms/invitations/${token}/accept`, {});
      assert.equal(accept.statusCode, 409);
      assert.match(pageText(accept.body), /can no longer add members/);
      assert.equal(await roleOf(slug, invitee.email), undefined);
    });

    it("another firm's member or invitation under my firm's address: 404, nothing changed", async () => {
      const mine = await team('mine');
      const theirs = await team('theirs');
      await theirs.owner.client.get(`/firms/${theirs.slug}/members`);
      await theirs.owner.client.post(`/firms/${theirs.slug}/invitations`, { email: `x@${theirs.slug}.example`, role: 'member' });
      const [invitation] = await invitationRows(ctx.database, theirs.slug);
      await mine.owner.client.get(`/firms/${mine.slug}/members`);
      assert.equal((await mine.owner.client.post(`/firms/${mine.slug}/invitations/${invitation!.id}/revoke`, {})).statusCode, 404);
      assert.equal((await mine.owner.client.post(`/firms/${mine.slug}/members/${theirs.member.userId}/role`, { role: 'owner' })).statusCode, 404);
      assert.equal((await mine.owner.client.post(`/firms/${mine.slug}/members/${theirs.member.userId}/remove`, {})).statusCode, 404);
      assert.equal((await invitationRows(ctx.database, theirs.slug))[0]?.revoked_at, null);
      assert.equal((await roleOf(theirs.slug, theirs.member.email))?.role, 'member');
    });

    it('"key creator left" notifications: shown to owners and admins, newest first, never to members', async () => {
      const { slug, owner, admin, member } = await team('notices');
      await ctx.app.services.accounts.setPermissions(OPERATOR, slug, member.email, ['keys:manage']);
      const { key } = await ctx.app.services.keys.create(user(member), { firmSlug: slug }, { mode: 'live', name: 'zapier' });
      const leaver = await signedIn(ctx, `leaver@${slug}.example`);
      await ctx.app.services.accounts.addMember(OPERATOR, slug, leaver.email, 'admin');
      const { key: other } = await ctx.app.services.keys.create(user(leaver), { firmSlug: slug }, { mode: 'test', name: 'staging' });
      // The member who created "zapier" is made an admin (role changed), then the other admin leaves.
      await owner.client.get(`/firms/${slug}/members`);
      const promoted = await owner.client.post(`/firms/${slug}/members/${member.userId}/role`, { role: 'admin' });
      assert.equal(promoted.headers.location, `/firms/${slug}/members?done=role&keys=1`);
      assert.match(pageText((await owner.client.get(promoted.headers.location as string)).body), /They created a firm key that keeps working/);
      ctx.clock.advance(60_000);
      await leaver.client.get(`/firms/${slug}/leave`);
      assert.equal((await leaver.client.post(`/firms/${slug}/leave`, {})).statusCode, 303);

      const seen = pageText((await owner.client.get(`/firms/${slug}`)).body);
      const left = seen.indexOf(`${leaver.email} is no longer a member.`);
      const changed = seen.indexOf(`${member.email} changed role from Member to Administrator.`);
      assert.ok(left > 0 && changed > left, 'both, newest first');
      assert.match(seen, new RegExp(`${other.prefix}… staging \\(Test\\)`));
      assert.match(seen, new RegExp(`${key.prefix}… zapier \\(Live\\)`));
      assert.match((await admin.client.get(`/firms/${slug}`)).body, new RegExp(`href="/firms/${slug}/keys/${other.id}"`), 'an admin sees them too');
      // Each notice's email went through the mail outbox (retried if SMTP fails; in `consulta mail list`).
      const mailed = await ctx.app.services.mail.list({ to: owner.email });
      assert.deepEqual(mailed.filter((m) => m.subject.includes('need review')).map((m) => m.subject).sort(), [
        `Bufete ${slug}: API keys created by ${leaver.email} need review`,
        `Bufete ${slug}: API keys created by ${member.email} need review`,
      ].sort());

      // A plain member sees no notifications, and the domain refuses them.
      const plain = await signedIn(ctx, `plain@${slug}.example`);
      await ctx.app.services.accounts.addMember(OPERATOR, slug, plain.email, 'member');
      const memberView = pageText((await plain.client.get(`/firms/${slug}`)).body);
      assert.doesNotMatch(memberView, /Notifications|no longer a member/);
      await assert.rejects(ctx.app.services.accounts.keyCreatorNotices(user(plain), slug), { code: 'forbidden' });
    });

    it('refuses forms without a valid CSRF token or from another site, and changes nothing', async () => {
      const { slug, owner, member } = await team('csrf');
      await owner.client.get(`/firms/${slug}/members`);
      const forged = await owner.client.post(`/firms/${slug}/members/${member.userId}/remove`, { _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      assert.match(pageText(forged.body), /This form has expired/);
      const crossSite = await owner.client.post(`/firms/${slug}/invitations`, { email: 'x@example.com', role: 'member' }, { origin: 'https://evil.example' });
      assert.equal(crossSite.statusCode, 403);
      const noToken = await ctx.app.fastify.inject({
        method: 'POST',
        url: '/firms',
        payload: 'name=Evil&slug=evil-firm',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...owner.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.equal(noToken.statusCode, 403);
      assert.equal((await roleOf(slug, member.email))?.role, 'member');
      assert.deepEqual(await invitationRows(ctx.database, slug), []);
      assert.equal((await ctx.app.services.accounts.listMyFirms(user(owner))).length, 1);
    });

    it('speaks Spanish: the pages, and the invitation email in the inviter’s language', async () => {
      const slug = unique('es');
      const owner = await signedIn(ctx, `duena@${slug}.example`, { lang: 'es' });
      await owner.client.get('/firms');
      assert.match(pageText(owner.client.last!.body), /Crear un despacho/);
      await owner.client.post('/firms', { name: 'Despacho Luna', slug });
      const overview = pageText((await owner.client.get(`/firms/${slug}?done=created`)).body);
      assert.match(overview, /Se ha creado Despacho Luna y tienes la función de propietario/);
      assert.match(overview, /Tu función Propietario/);
      const members = pageText((await owner.client.get(`/firms/${slug}/members`)).body);
      assert.match(members, /Invitar a alguien/);
      await owner.client.post(`/firms/${slug}/invitations`, { email: `nuevo@${slug}.example`, role: 'member', permissions: 'usage:read' });
      const mail = await ctx.app.services.mail.last(`nuevo@${slug}.example`);
      assert.equal(mail?.subject, `duena@${slug}.example te ha invitado a Despacho Luna en Consulta`);
      assert.match(mail!.text, /Ver las peticiones y el uso del despacho/);
      const token = await invitationToken(ctx.app, `nuevo@${slug}.example`);
      const invitee = await signedIn(ctx, `nuevo@${slug}.example`, { lang: 'es' });
      assert.match(pageText((await invitee.client.get(`/firms/invitations/${token}`)).body), /te ha invitado a unirte a Despacho Luna\. Tu función: Miembro\./);
      const stranger = await signedIn(ctx, `otra@${slug}.example`, { lang: 'es' });
      assert.match(pageText((await stranger.client.get(`/firms/invitations/${token}`)).body), /Esta invitación se envió a nuevo@/);
    });
  });
}
