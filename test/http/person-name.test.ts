/**
 * The person's name is asked once (issue 26 item 4; DESIGN.md §13), on both databases: given on
 * the first hold page it is kept on the account, so the next hold page does not ask again but says
 * which name the lawyer will see and where to change it; Account → Your name sets, changes or
 * removes it (a no-JavaScript form with its CSRF token; the short-text rule, at most 100
 * characters, never an email address as a name); an AI app's hold carries the account's name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClient, structured } from '../mcp/support.ts';
import { pageText } from '../support/site.ts';
import { checkPersonName } from '../../src/domain/people/person-name.ts';

describe('checkPersonName', () => {
  it('trims; empty is none; too long, invisible characters and email addresses are refused', () => {
    assert.deepEqual(checkPersonName('  Amina Haddad '), { ok: true, name: 'Amina Haddad' });
    assert.deepEqual(checkPersonName('أمينة حداد'), { ok: true, name: 'أمينة حداد' });
    assert.deepEqual(checkPersonName('   '), { ok: true, name: null });
    assert.deepEqual(checkPersonName(undefined), { ok: true, name: null });
    assert.deepEqual(checkPersonName('x'.repeat(100)), { ok: true, name: 'x'.repeat(100) });
    assert.deepEqual(checkPersonName('x'.repeat(101)), { ok: false, error: 'name_too_long' });
    assert.deepEqual(checkPersonName('Amina\u200bHaddad'), { ok: false, error: 'name_invalid' });
    assert.deepEqual(checkPersonName('Amina\nHaddad'), { ok: false, error: 'name_invalid' });
    assert.deepEqual(checkPersonName('amina@example.com'), { ok: false, error: 'name_is_email' });
    assert.deepEqual(checkPersonName('Amina (amina.h@gmail.com)'), { ok: false, error: 'name_is_email' });
    assert.deepEqual(checkPersonName('Amina @ home'), { ok: true, name: 'Amina @ home' });
  });
});

for (const target of databaseTargets()) {
  describe(`the person's name, asked once (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    before(async () => {
      ctx = await createTestContext(target); // Monday 2026-11-23
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', languages: ['es', 'en'], formats: { video_url: 'https://meet.example.com/lucia' } })])) as [string];
    });
    after(async () => ctx?.close());

    const nameOf = async (userId: string) => (await ctx.database.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirstOrThrow()).name;
    const holdPage = async (me: SignedIn, hour: string) => {
      const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', hour), { remoteAddress: `192.0.2.${Number(hour)}` });
      assert.equal(res.statusCode, 201, res.body);
      const token = tokenOf(res.json().confirmation_url);
      const page = await me.client.get(`/confirm/${token}`);
      assert.equal(page.statusCode, 200);
      return { token, page };
    };
    const intentName = async (token: string) => (await ctx.database.db.selectFrom('booking_intents').select('person_name').where('confirmation_token', '=', token).executeTakeFirstOrThrow()).person_name;

    it('given on the first hold page, kept on the account: the next hold page says it instead of asking', async () => {
      const me = await signedIn(ctx, `first-hold-${target.name}@example.com`, { lang: 'en' });
      assert.equal(await nameOf(me.userId), null);
      const first = await holdPage(me, '09');
      assert.match(first.page.body, /<label for="f-person_name">Your name<\/label>/);
      // An email address is not a name: refused with a message, nothing kept.
      const refused = await me.client.post(`/confirm/${first.token}/choices`, { format: 'video', person_name: `first-hold-${target.name}@example.com` });
      assert.equal(refused.statusCode, 400);
      assert.match(pageText(refused.body), /Write your name, not an email address/);
      assert.equal(await nameOf(me.userId), null);
      assert.equal((await me.client.post(`/confirm/${first.token}/choices`, { format: 'video', person_name: 'Amina Haddad' })).statusCode, 303);
      assert.equal(await nameOf(me.userId), 'Amina Haddad');
      assert.equal(await intentName(first.token), 'Amina Haddad');

      const second = await holdPage(me, '10');
      assert.doesNotMatch(second.page.body, /id="f-person_name"/, 'asked once');
      assert.match(pageText(second.page.body), /The lawyer will see your name: Amina Haddad\. Change it in your account/);
      assert.match(second.page.body, /href="\/account#account-name"/);
      assert.equal((await me.client.post(`/confirm/${second.token}/choices`, { format: 'video', person_name: 'Someone Else' })).statusCode, 303);
      assert.equal(await intentName(second.token), 'Amina Haddad', 'the account\'s name, not a field that was not shown');
      // Account shows it in its field.
      const account = await me.client.get('/account');
      assert.match(account.body, /<label for="f-name">Your name<\/label>/);
      assert.match(account.body, /id="f-name" name="name" type="text" value="Amina Haddad"/);
    });

    it('Account → Your name: set, change, refuse, remove; CSRF; the next hold page follows', async () => {
      const me = await signedIn(ctx, `account-name-${target.name}@example.com`, { lang: 'es' });
      const page = await me.client.get('/account');
      assert.match(pageText(page.body), /Aún no nos has dado un nombre/);
      assert.match(page.body, /action="\/account\/name"/);
      // A forged token: refused, nothing stored.
      assert.equal((await me.client.post('/account/name', { name: 'Forged', _csrf: 'forged' })).statusCode, 403);
      assert.equal(await nameOf(me.userId), null);
      for (const [name, message] of [
        ['x'.repeat(101), /Tu nombre puede tener como máximo 100 caracteres/],
        ['Ana\u200bLópez', /sin caracteres invisibles ni de control/],
        ['ana@example.com', /no una dirección de correo/],
      ] as const) {
        await me.client.get('/account');
        const res = await me.client.post('/account/name', { name });
        assert.equal(res.statusCode, 400, name);
        assert.match(pageText(res.body), message);
        assert.match(res.body, /aria-invalid="true" aria-describedby="f-name-error"/);
        assert.equal(await nameOf(me.userId), null);
      }
      await me.client.get('/account');
      const saved = await me.client.post('/account/name', { name: '  Ana <b>López</b> ' });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, '/account?saved=name#account-name');
      assert.equal(await nameOf(me.userId), 'Ana <b>López</b>');
      const after = await me.client.get('/account?saved=name');
      assert.match(pageText(after.body), /Tu nombre está guardado/);
      assert.match(after.body, /value="Ana &lt;b>López&lt;\/b>"/, 'escaped');
      const hold = await holdPage(me, '11');
      assert.doesNotMatch(hold.page.body, /id="f-person_name"/);
      assert.match(pageText(hold.page.body), /El despacho verá tu nombre: Ana <b>López<\/b>\./);

      // Removed: the next hold page asks again.
      await me.client.get('/account');
      const removed = await me.client.post('/account/name', { name: '' });
      assert.equal(removed.headers.location, '/account?saved=name_removed#account-name');
      assert.equal(await nameOf(me.userId), null);
      assert.match(pageText((await me.client.get('/account?saved=name_removed')).body), /Hemos quitado tu nombre/);
      assert.match((await holdPage(me, '12')).page.body, /id="f-person_name"/);
      // Signed out, without a form's token: refused, nothing changed.
      assert.equal((await ctx.app.fastify.inject({ method: 'POST', url: '/account/name', payload: { name: 'X' } })).statusCode, 403);
      assert.equal(await nameOf(me.userId), null);
    });

    it('an AI app\'s hold carries the account\'s name (never the email)', async () => {
      const agent = await connectedAgent(ctx, `agent-name-${target.name}@example.com`, 'directory:read slots:hold my-bookings:read');
      await ctx.database.db.updateTable('users').set({ name: 'Oksana Kovalenko' }).where('id', '=', agent.person.userId).execute();
      const client = await sdkClient(ctx, agent.accessToken);
      try {
        const held = structured<{ booking_intent_id: string }>(await client.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: lawyer, date: '2026-11-25', start_time: '09:00:00', end_time: '10:00:00' } }));
        const row = await ctx.database.db.selectFrom('booking_intents').select('person_name').where('id', '=', held.booking_intent_id).executeTakeFirstOrThrow();
        assert.equal(row.person_name, 'Oksana Kovalenko');
      } finally {
        await client.close();
      }
    });
  });
}
