/**
 * The people's Account page and account deletion through the site (app.inject, a cookie-keeping
 * client), on both databases: the page in both languages with its links (connected apps,
 * passkeys) and sign out everywhere; the language form (the account's language, which emails use,
 * and this browser's); the deletion page saying what goes and what stays, its refusals, the
 * re-authentication it needs (a new emailed code, coming back to the page), and the deletion
 * itself. Attacks: a forged or cross-site form, a stale session, another person's session naming
 * someone else's address (or id): refused, nothing changed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, madridDate } from '../support/booking.ts';
import { signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { mailedCode, signInMails } from '../support/http-browser.ts';
import { pageText } from '../support/site.ts';
import { connect, registerClient } from '../oauth/support.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';

const MINUTE = 60_000;

for (const target of databaseTargets()) {
  describe(`Account page and deletion on the site (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let n = 0;

    before(async () => {
      ctx = await createTestContext(target, { now: new Date(Date.now() - 5 * 86_400_000).toISOString() });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    const db = () => ctx.database.db;
    const email = (name: string) => `${name}-${++n}@example.com`;
    const userRow = (id: string) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const liveSessions = async (userId: string) => (await db().selectFrom('sessions').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null).execute()).length;

    it('GET /account: the signed-out are sent to sign in and come back', async () => {
      const me = await signedIn(ctx, email('out'));
      me.client.cookies.clear();
      const res = await me.client.get('/account');
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/sign-in?return_to=%2Faccount');
    });

    it('shows the address, the language form, connected apps, passkeys and sign out everywhere, in English and Spanish', async () => {
      const address = email('page');
      const me = await signedIn(ctx, address);
      const clientId = await registerClient(ctx, { client_name: 'Asistente <b>Legal</b>' });
      await connect(ctx, me.client, { clientId, scope: 'directory:read' });
      const en = await me.client.get('/account');
      assert.equal(en.statusCode, 200);
      const text = pageText(en.body);
      assert.match(text, new RegExp(`Email address ${address.replace('.', '\\.')}`));
      assert.match(text, /1 AI app can use Consulta for you: Asistente <b>Legal<\/b>/, 'the app\'s name, escaped');
      assert.ok(en.body.includes('Asistente &lt;b>Legal&lt;/b>'), 'escaped');
      assert.doesNotMatch(en.body, /<b>Legal/);
      assert.match(en.body, /href="\/account\/apps"/);
      assert.match(en.body, /href="\/account\/passkeys"/);
      assert.match(en.body, /<form method="post" action="\/sign-out\/everywhere"/);
      assert.match(text, /You are signed in in 1 place now/);
      assert.match(text, /AI apps you connected keep working until you disconnect them/);
      assert.match(en.body, /href="\/account\/delete"/);
      assert.match(en.body, /<option value="es" lang="es">Español<\/option>/);
      assert.match(en.body, /<label for="f-locale">Language<\/label>/);
      // When the account was made: in the service's zone until the browser says its own, then in that one.
      assert.match(text, /Account since [^()]*\(mainland Spain time\)/);
      me.client.cookies.set('consulta_tz', encodeURIComponent('America/Bogota'));
      assert.match(pageText((await me.client.get('/account')).body), /Account since [^()]*\(Colombia[^()]*\)/);
      const es = await me.client.get('/account?lang=es');
      const spanish = pageText(es.body);
      assert.match(spanish, /Cuenta/);
      assert.match(spanish, /Salir en todos los dispositivos/);
      assert.match(spanish, /Borrar mi cuenta/);
      assert.doesNotMatch(spanish, /Connected apps|Sign out everywhere|Delete my account/);
    });

    it('the language form sets the account\'s language (emails use it) and this browser\'s; an unknown one is refused', async () => {
      const me = await signedIn(ctx, email('lang'));
      await me.client.get('/account');
      const saved = await me.client.post('/account/language', { locale: 'es' });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, '/account?saved=language');
      assert.equal((await userRow(me.userId)).locale, 'es');
      assert.equal(me.client.cookies.get('consulta_lang'), 'es');
      const page = await me.client.get('/account?saved=language');
      assert.match(pageText(page.body), /Guardado: la web y nuestros correos para ti están ahora en Español/);
      assert.match(page.body, /<option value="es" lang="es" selected>Español<\/option>/);

      const bad = await me.client.post('/account/language', { locale: 'xx' });
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /Elige uno de los idiomas de la lista/);
      assert.match(bad.body, /aria-invalid="true"/);
      assert.equal((await userRow(me.userId)).locale, 'es', 'unchanged');
      // An email written afterwards uses it: the deletion confirmation sent by the operator.
      const report = await ctx.app.services.deletion.deleteByOperator({ type: 'operator' }, (await userRow(me.userId)).email);
      const mail = await db().selectFrom('mail_outbox').select('subject').where('id', '=', report.confirmationMailId).executeTakeFirstOrThrow();
      assert.equal(mail.subject, 'Se ha borrado tu cuenta de Consulta');
    });

    it('the deletion page says what goes and what stays and why; a fresh session deletes after typing the address', async () => {
      const address = email('bye');
      const me = await signedIn(ctx, address);
      const page = await me.client.get('/account/delete');
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.match(text, /What we delete/);
      assert.match(text, /The address is free again: signing in with it later creates a new, empty account/);
      assert.match(text, /What we keep, why, and for how long/);
      assert.match(text, /six years \(Código de Comercio, art\. 30; tax law: four years, Ley General Tributaria, arts\. 66 and 70\)/);
      assert.match(text, /kept 30 days for security/);
      assert.match(page.body, /<form method="post" action="\/account\/delete"/);
      assert.match(text, new RegExp(`Type your email address to confirm: ${address.replace('.', '\\.')}`));

      const wrong = await me.client.post('/account/delete', { confirm_email: 'not-me@example.com' });
      assert.equal(wrong.statusCode, 400);
      assert.match(pageText(wrong.body), /That is not the address of this account/);
      assert.equal((await userRow(me.userId)).email, address);

      const done = await me.client.post('/account/delete', { confirm_email: address });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/account/deleted');
      assert.equal(me.client.cookies.has(`__Host-consulta_session`) || me.client.cookies.has('consulta_session'), false, 'the cookie is cleared');
      assert.equal((await userRow(me.userId)).email, `deleted:${me.userId}`);
      const after = await me.client.get('/account/deleted');
      assert.equal(after.statusCode, 200);
      assert.match(pageText(after.body), /Your account is deleted .* We sent a confirmation to your email address/);
      assert.match(after.body, /href="\/sign-in\?return_to=/, 'signed out: the header offers to sign in');
      assert.equal((await me.client.get('/account')).statusCode, 303);
    });

    it('a session older than 10 minutes must confirm first: an emailed code brings the person back, and then it deletes', async () => {
      const address = email('stale');
      const me = await signedIn(ctx, address);
      ctx.clock.advance(11 * MINUTE);
      const page = await me.client.get('/account/delete');
      const text = pageText(page.body);
      assert.match(text, /For your safety, confirm it is you first/);
      assert.doesNotMatch(page.body, /action="\/account\/delete"/, 'no deletion form yet');
      assert.match(page.body, /<form method="post" action="\/sign-in" class="inline">/);
      assert.doesNotMatch(page.body, /Use a passkey/, 'no passkey to use');

      // The form is there, but the stale session cannot use it (a page kept open, or forged).
      const stale = await me.client.post('/account/delete', { confirm_email: address });
      assert.equal(stale.statusCode, 403);
      assert.match(pageText(stale.body), /More than 10 minutes have passed/);
      assert.equal((await userRow(me.userId)).email, address, 'nothing changed');
      assert.equal(await liveSessions(me.userId), 1);

      const known = await signInMails(ctx.database, address);
      const asked = await me.client.post('/sign-in', { email: address, return_to: '/account/delete' });
      assert.equal(asked.headers.location, '/sign-in/code');
      await me.client.get('/sign-in/code');
      const back = await me.client.post('/sign-in/code', { code: await mailedCode(ctx.database, address, known) });
      assert.equal(back.statusCode, 303);
      assert.equal(back.headers.location, '/account/delete');
      const fresh = await me.client.get('/account/delete');
      assert.match(fresh.body, /action="\/account\/delete"/);
      const done = await me.client.post('/account/delete', { confirm_email: address });
      assert.equal(done.headers.location, '/account/deleted');
      assert.equal(await liveSessions(me.userId), 0, 'both sessions ended');
    });

    it('a passkey proof makes a stale session recent (the step-up page comes back here)', async () => {
      const address = email('passkey');
      const me = await signedIn(ctx, address);
      await db()
        .insertInto('passkeys')
        .values({ id: randomUUID(), user_id: me.userId, credential_id: randomUUID(), public_key: 'pk', counter: 0, transports: '[]', name: 'Phone', device_type: 'multiDevice', backed_up: 1, created_at: ctx.clock.now().toISOString(), last_used_at: null })
        .execute();
      ctx.clock.advance(11 * MINUTE);
      const page = await me.client.get('/account/delete');
      assert.match(page.body, /href="\/account\/passkeys\/step-up\?return_to=%2Faccount%2Fdelete"/);
      await ctx.app.services.sessions.markSteppedUp(me.sessionId);
      assert.match((await me.client.get('/account/delete')).body, /action="\/account\/delete"/);
    });

    it('refused with an upcoming consultation: the page says why and offers no form; a forced post is 409 and changes nothing', async () => {
      const address = email('booked');
      const me = await signedIn(ctx, address);
      const h = await hold(ctx, lawyerId, madridDate(ctx.clock.now().getTime(), 2), '10');
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, me.userId, GOOD_CARD)).kind, 'confirmed');
      const page = await me.client.get('/account/delete');
      const text = pageText(page.body);
      assert.match(text, /Before you can delete your account/);
      assert.match(text, /You have 1 consultation that has not taken place yet/);
      assert.match(page.body, /href="\/consultations"/);
      assert.doesNotMatch(page.body, /action="\/account\/delete"/);
      const forced = await me.client.post('/account/delete', { confirm_email: address });
      assert.equal(forced.statusCode, 409);
      assert.match(pageText(forced.body), /Your account was not deleted/);
      assert.equal((await userRow(me.userId)).email, address);
      assert.equal(await liveSessions(me.userId), 1);
    });

    it("refused for a firm's only owner, with a link to the firm's members", async () => {
      const address = email('firm');
      const me = await signedIn(ctx, address);
      await ctx.app.services.accounts.createFirm({ type: 'user', userId: me.userId }, { slug: `only-${n}`, name: 'Only Owner SL' });
      const page = await me.client.get('/account/delete');
      assert.match(pageText(page.body), /You are the only owner of Only Owner SL/);
      assert.match(page.body, new RegExp(`href="/firms/only-${n}/members"`));
      assert.equal((await me.client.post('/account/delete', { confirm_email: address })).statusCode, 409);
    });

    it('attacks: a forged token, a cross-site post, another person naming a victim: refused, nothing changed', async () => {
      const victimAddress = email('victim');
      const victim = await signedIn(ctx, victimAddress);
      const attacker = await signedIn(ctx, email('attacker'));
      await attacker.client.get('/account/delete');
      const snapshot = async () => [await userRow(victim.userId), await userRow(attacker.userId), await liveSessions(victim.userId), await liveSessions(attacker.userId)];
      const before = await snapshot();

      assert.equal((await victim.client.post('/account/delete', { confirm_email: victimAddress, _csrf: 'forged' })).statusCode, 403, 'no CSRF token of ours');
      await victim.client.get('/account/delete');
      assert.equal((await victim.client.post('/account/delete', { confirm_email: victimAddress }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode, 403, 'cross-site');
      assert.equal((await victim.client.post('/account/delete', { confirm_email: victimAddress }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403, 'cross-site, no Origin');
      // The attacker's own fresh session, naming the victim by address or by id: it is only ever the session's own account.
      const named = await attacker.client.post('/account/delete', { confirm_email: victimAddress, user_id: victim.userId, userId: victim.userId });
      assert.equal(named.statusCode, 400);
      assert.equal((await attacker.client.post('/account/language', { locale: 'es', user_id: victim.userId })).statusCode, 303);
      const after = await snapshot();
      assert.deepEqual([after[0], after[2], after[3]], [before[0], before[2], before[3]]);
      assert.equal((after[1] as { locale: string | null }).locale, 'es', 'the language form changed the attacker\'s own account only');
      // Without the browser's cookies (a request made elsewhere): refused before the route runs.
      assert.equal((await victim.client.post('/account/delete', { confirm_email: victimAddress }, { cookie: '' })).statusCode, 403);
      // Signed out (a valid form, no session): sent to sign in, coming back to the page; nothing happens.
      victim.client.cookies.delete('consulta_session');
      const signedOut = await victim.client.post('/account/delete', { confirm_email: victimAddress });
      assert.equal(signedOut.statusCode, 303);
      assert.equal(signedOut.headers.location, '/sign-in?return_to=%2Faccount%2Fdelete');
      assert.deepEqual(await userRow(victim.userId), before[0]);
    });
  });
}
