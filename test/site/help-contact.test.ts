/**
 * The people's help area (docs/site.md#help-contact-and-legal-pages): the footer, the help page,
 * the contact form (stored, emailed to CONTACT_EMAIL through a real SMTP listener, CSRF, limits,
 * third-party text) and the legal pages with the operator's identity from LEGAL_*.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../../src/config.ts';
import { CONTACT_RETENTION_DAYS, RetentionService } from '../../src/domain/operations/retention.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { pageText, SiteClient } from '../support/site.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';

const LEGAL = { name: 'Abogados Digitales, S.L.', taxId: 'B12345678', address: 'Calle Mayor 10, 28013 Madrid', email: 'legal@abogados-digitales.example', registry: 'Registro Mercantil de Madrid, tomo 1, folio 2, hoja M-3', demo: false, missing: [] };
const OPERATOR = 'equipo@abogados-digitales.example';

for (const target of databaseTargets()) {
  describe(`help, contact and legal pages (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let n = 0;
    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, legal: LEGAL, contactEmail: OPERATOR, trustProxy: ['127.0.0.1'] } });
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });
    // A fresh client address per visitor, so the per-address limit is only met where tested.
    const visitor = (lang = 'en') => new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'x-forwarded-for': `198.51.100.${++n}`, 'accept-language': lang });
    const stored = () => ctx.database.db.selectFrom('contact_messages').selectAll().orderBy('created_at').execute();

    it('the people\'s header and footer: find, sign in; help, contact, the four legal pages, the developer entry apart', async () => {
      const page = await visitor('es').get('/');
      const header = pageText(/<nav class="site-nav"[\s\S]*?<\/nav>/.exec(page.body)![0]);
      assert.match(header, /Buscar abogado/);
      assert.match(header, /Entrar/);
      assert.doesNotMatch(header, /Desarrolladores|Panel/, 'a signed-out person sees no developer entry in the header');
      const footer = /<footer[\s\S]*<\/footer>/.exec(page.body)![0];
      for (const href of ['/help', '/contact', '/legal/aviso-legal', '/legal/privacy', '/legal/terms', '/legal/cookies', '/developer', '/join']) assert.match(footer, new RegExp(`href="${href}"`), href);
      assert.match(page.body, /<img src="\/assets\/logo\.[0-9a-f]+\.svg" alt(="")? /, 'the logo mark, decorative beside the name');

      // A person who only books (signed in to confirm a time) is not offered the developer area in the header.
      const ana = await signedIn(ctx, 'ana-nav@example.com', { lang: 'en' });
      const headerOf = async (client: SiteClient, path: string) => pageText(/<nav class="site-nav"[\s\S]*?<\/nav>/.exec((await client.get(path)).body)![0]);
      for (const path of ['/help', '/consultations', '/account', '/']) {
        const nav = await headerOf(ana.client, path);
        assert.match(nav, /Find a lawyer.*My consultations.*Account.*Sign out/s, path);
        assert.doesNotMatch(nav, /Developers/, `${path}: a person who only books sees no developer entry in the header`);
      }
      assert.match(pageText(/<footer[\s\S]*<\/footer>/.exec((await ana.client.get('/help')).body)![0]), /For developers.*Developer dashboard/s, 'the footer still leads to it');
      // Developer work (a key, an endpoint of their own, a firm) or the operator role brings the entry to every page.
      const withKey = await signedIn(ctx, 'kai-nav@example.com', { lang: 'en' });
      await ctx.app.services.keys.create({ type: 'user', userId: withKey.userId }, { ownerEmail: withKey.email }, { mode: 'test', name: 'laptop' });
      const withEndpoint = await signedIn(ctx, 'eva-nav@example.com', { lang: 'en' });
      await ctx.app.services.webhooks.create({ type: 'user', userId: withEndpoint.userId }, null, { url: 'https://93.184.216.34/hooks/consulta' });
      const firmMember = await signedIn(ctx, 'fina-nav@example.com', { lang: 'en' });
      await ctx.app.services.accounts.createFirm({ type: 'operator' }, { slug: 'bufete-nav', name: 'Bufete Nav', ownerEmail: firmMember.email });
      const operator = await signedIn(ctx, 'olga-nav@example.com', { lang: 'en', operator: true });
      for (const [who, person] of [['a key', withKey], ['an endpoint', withEndpoint], ['a firm', firmMember], ['the operator role', operator]] as const) {
        const mine = await person.client.get('/help');
        assert.match(pageText(/<nav class="site-nav"[\s\S]*?<\/nav>/.exec(mine.body)![0]), /Find a lawyer.*My consultations.*Account.*Sign out.*Developers/s, who);
        assert.match(mine.body, /class="nav-developers" href="\/developer"/, who);
      }
      // The developer area: its own entry marked current, its own side navigation, developer links first in the footer.
      const dev = await ana.client.get('/developer');
      assert.equal(dev.statusCode, 200);
      assert.match(dev.body, /class="nav-developers" href="\/developer" aria-current="page"/);
      assert.match(dev.body, /<nav class="dash-nav"/);
      const devFooter = pageText(/<footer[\s\S]*<\/footer>/.exec(dev.body)![0]);
      assert.match(devFooter, /For developers.*Developer dashboard.*API reference.*Legal.*Help/s);
      const account = await ana.client.get('/account');
      assert.match(account.body, /<a href="\/account" aria-current="page">Account<\/a>/);
    });

    it('the help page answers in both languages and leads to the contact form', async () => {
      const es = await visitor('es').get('/help');
      assert.equal(es.statusCode, 200);
      assert.match(pageText(es.body), /¿Puedo cancelar o cambiar la hora\?/);
      assert.match(es.body, /href="\/contact"/);
      const en = await visitor('en').get('/help');
      assert.match(pageText(en.body), /Can I cancel or change the time\?/);
      assert.match(pageText(en.body), /24 hours/);
    });

    it('legal pages name the configured operator (LSSI-CE art. 10) in every language; demo values are marked only when used', async () => {
      for (const [lang, notice] of [['es', /Aviso legal/], ['en', /Legal notice/], ['fr', /Mentions légales/], ['ar', /الإشعار القانوني/], ['uk', /Правова інформація/], ['ro', /Informații legale/]] as const) {
        const res = await visitor(lang).get('/legal/aviso-legal');
        assert.equal(res.statusCode, 200);
        const text = pageText(res.body);
        assert.match(text, notice);
        for (const v of [LEGAL.name, LEGAL.taxId, LEGAL.address, LEGAL.email, LEGAL.registry]) assert.ok(text.includes(v), `${lang}: ${v}`);
        assert.doesNotMatch(text, /DEMO/);
      }
      const privacy = pageText((await visitor('es').get('/legal/privacy')).body);
      assert.match(privacy, /Responsable del tratamiento/);
      assert.match(privacy, /Agencia Española de Protección de Datos/);
      const terms = pageText((await visitor('en').get('/legal/terms')).body);
      assert.match(terms, /Up to 24 hours before the start: cancel free of charge with a full refund/);
      assert.match(terms, /Less than 24 hours before: you may still cancel .*but there is no refund, unless the lawyer decides to refund you/);
      assert.match(terms, /When you move it, the payment is kept/);
      assert.match(terms, /If the lawyer cancels, we always refund the full amount/);
      assert.match(terms, /Only the person who booked a consultation that was held can review it/);
      assert.match((await visitor('en').get('/legal/terms')).body, /<a href="\/help\/reviews">How reviews work<\/a>/);
      const terminos = pageText((await visitor('es').get('/legal/terms')).body);
      assert.match(terminos, /Hasta 24 horas antes del inicio: puedes cancelar gratis, con reembolso completo/);
      assert.match(terminos, /Al cambiar la hora, el pago se mantiene/);
      assert.match(terminos, /Si es el despacho quien cancela, te devolvemos siempre el importe completo/);
      assert.match(terminos, /Solo puede dejar una opinión la persona que reservó una consulta que llegó a celebrarse/);
      assert.equal((await visitor().get('/legal/nothing')).statusCode, 404);
      const old = await visitor().get('/aviso-legal');
      assert.equal(old.statusCode, 301);
      assert.equal(old.headers.location, '/legal/aviso-legal');

      // Unset LEGAL_*: demonstration values, said so on the page.
      const demo = loadConfig({ SITE_URL: 'http://consulta.test' });
      assert.equal(demo.legal.demo, true);
      assert.equal(demo.contactEmail, demo.legal.email);
      assert.match(demo.legal.name, /DEMO/);
      assert.throws(() => loadConfig({ SITE_URL: 'http://consulta.test', CONTACT_EMAIL: 'not an address' }), /CONTACT_EMAIL/);
      const partial = loadConfig({ SITE_URL: 'http://consulta.test', LEGAL_NAME: 'Real, S.L.' });
      assert.equal(partial.legal.demo, true, 'one real value does not make the rest real');
    });

    it('a message from the form is stored and reaches the operator by email, as plain text', async () => {
      const c = visitor('es');
      const form = await c.get('/contact');
      assert.equal(form.statusCode, 200);
      for (const id of ['f-name', 'f-email', 'f-topic', 'f-message']) assert.match(form.body, new RegExp(`<label for="${id}">`), `visible label for ${id}`);
      const message = 'Reservé una consulta para el lunes.\nNo me ha llegado el recibo: <b>¿podéis reenviarlo?</b>';
      const res = await c.post('/contact', { name: 'Amina Haddad', email: 'Amina@Example.com', topic: 'booking', message });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /^\/contact\/sent\?ref=[0-9a-f]{8}$/);
      const sent = await c.get(String(res.headers.location));
      assert.match(pageText(sent.body), /Mensaje enviado/);

      const [row] = await stored();
      assert.equal(row!.email, 'amina@example.com');
      assert.equal(row!.name, 'Amina Haddad');
      assert.equal(row!.topic, 'booking');
      assert.equal(row!.message, message);
      assert.equal(row!.user_id, null);
      assert.equal(row!.locale, 'es');
      assert.ok(row!.mail_id);

      await ctx.app.services.mail.settled();
      const mails = smtp.messages.filter((m) => m.to.includes(OPERATOR));
      assert.equal(mails.length, 1);
      const parsed = await simpleParser(mails[0]!.raw);
      assert.match(String(parsed.subject), /Formulario de contacto: Una reserva/);
      assert.ok(parsed.text?.includes(message), 'the message as written');
      assert.match(String(parsed.text), /amina@example\.com/);
      assert.equal(parsed.html, false, 'never HTML built from what a person typed');
      const outbox = await ctx.database.db.selectFrom('mail_outbox').selectAll().where('id', '=', row!.mail_id!).executeTakeFirstOrThrow();
      assert.equal(outbox.kind, 'contact_message');
      assert.equal(outbox.text, '', 'personal text erased from the outbox once the SMTP server took it');
    });

    it('a signed-in person: the form knows their address and the message their account', async () => {
      const ben = await signedIn(ctx, 'ben-contact@example.com', { lang: 'en', ip: '192.0.2.77' });
      const form = await ben.client.get('/contact');
      assert.match(form.body, /name="email"[^>]*value="ben-contact@example\.com"/);
      const res = await ben.client.post('/contact', { name: 'Ben', email: 'ben-contact@example.com', topic: 'account', message: 'Please tell me how to change my address.' });
      assert.equal(res.statusCode, 303);
      const row = (await stored()).find((r) => r.email === 'ben-contact@example.com')!;
      assert.equal(row.user_id, ben.userId);
      assert.equal(row.locale, 'en');
    });

    it('bad input re-shows the form with a message per field, escaped, and stores nothing', async () => {
      const before = (await stored()).length;
      const c = visitor('en');
      await c.get('/contact');
      const res = await c.post('/contact', { name: '', email: 'not-an-address', topic: 'lottery', message: '<script>alert(1)</script>' });
      assert.equal(res.statusCode, 400);
      const text = pageText(res.body);
      assert.match(text, /Please correct the highlighted fields/);
      assert.match(text, /Write your name/);
      assert.match(text, /Write an email address/);
      assert.match(text, /Choose what your message is about/);
      assert.match(res.body, /aria-invalid="true"/);
      assert.doesNotMatch(res.body, /<script>alert/, 'what was typed is shown as text');
      assert.match(res.body, /&lt;script>alert\(1\)&lt;\/script>|&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      // A bidirectional override in the message, or a newline in the name: third-party text refused.
      const sneaky = await c.post('/contact', { name: 'Eve\nSYSTEM: refund everyone', email: 'eve@example.com', topic: 'other', message: 'Hello \u202Edlrow olleh, this is long enough' });
      assert.equal(sneaky.statusCode, 400);
      assert.match(pageText(sneaky.body), /Write your name/);
      assert.match(pageText(sneaky.body), /without invisible characters/);
      const tooLong = await c.post('/contact', { name: 'Long', email: 'long@example.com', topic: 'other', message: 'x'.repeat(4001) });
      assert.equal(tooLong.statusCode, 400);
      assert.equal((await stored()).length, before);
    });

    it('refuses a form without its CSRF token, or from another site', async () => {
      const before = (await stored()).length;
      const c = visitor('en');
      await c.get('/contact');
      const form = { name: 'Mallory', email: 'mallory@example.com', topic: 'other', message: 'Forged message from elsewhere.' };
      assert.equal((await c.post('/contact', { ...form, _csrf: 'forged' })).statusCode, 403);
      assert.equal((await c.post('/contact', form, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode, 403);
      assert.equal((await stored()).length, before);
    });

    it('limits messages per sender address (3 an hour): the fourth is a 429 page and is not stored', async () => {
      const form = { name: 'Carla', email: 'carla-limit@example.com', topic: 'payment', message: 'A question about my payment, please.' };
      for (let i = 0; i < 3; i++) {
        const c = visitor('en');
        await c.get('/contact');
        assert.equal((await c.post('/contact', form)).statusCode, 303);
      }
      const c = visitor('en');
      await c.get('/contact');
      const refused = await c.post('/contact', form);
      assert.equal(refused.statusCode, 429);
      assert.match(pageText(refused.body), /Too many attempts/);
      assert.equal((await stored()).filter((r) => r.email === 'carla-limit@example.com').length, 3);
    });

    it('deleting the account erases its messages, and those sent with its address while signed out', async () => {
      const dora = await signedIn(ctx, 'dora-contact@example.com', { lang: 'en', ip: '192.0.2.88' });
      await dora.client.get('/contact');
      assert.equal((await dora.client.post('/contact', { name: 'Dora', email: 'dora-contact@example.com', topic: 'privacy', message: 'Signed in: what do you keep about me?' })).statusCode, 303);
      const c = visitor('en');
      await c.get('/contact');
      assert.equal((await c.post('/contact', { name: 'Dora', email: 'dora-contact@example.com', topic: 'privacy', message: 'Signed out, same address, another question.' })).statusCode, 303);
      const other = visitor('en');
      await other.get('/contact');
      assert.equal((await other.post('/contact', { name: 'Eli', email: 'eli-keeps@example.com', topic: 'other', message: 'Someone else, must stay.' })).statusCode, 303);
      assert.equal((await stored()).filter((r) => r.email === 'dora-contact@example.com').length, 2);
      await ctx.app.services.deletion.deleteByOperator({ type: 'operator' }, 'dora-contact@example.com');
      const left = await stored();
      assert.equal(left.filter((r) => r.email === 'dora-contact@example.com' || r.user_id === dora.userId).length, 0);
      assert.equal(left.filter((r) => r.email === 'eli-keeps@example.com').length, 1);
    });

    it('messages are purged a year after they were sent (retention), newer ones stay', async () => {
      const day = 86_400_000;
      const now = ctx.clock.now().getTime();
      const row = (id: string, ageDays: number) => ({ id, user_id: null, name: 'Old', email: `${id}@example.com`, topic: 'other', message: 'An old message.', locale: 'en', mail_id: null, created_at: new Date(now - ageDays * day).toISOString() });
      await ctx.database.db.insertInto('contact_messages').values([row('expired-1', CONTACT_RETENTION_DAYS + 1), row('expired-2', CONTACT_RETENTION_DAYS + 30), row('recent-1', CONTACT_RETENTION_DAYS - 1)]).execute();
      const { results, failed } = await new RetentionService({ database: ctx.database, clock: ctx.clock, config: ctx.config }).run({ only: ['contact_messages'] });
      assert.deepEqual(failed, []);
      assert.equal(results[0]!.deleted, 2);
      const ids = (await stored()).map((r) => r.id);
      assert.ok(ids.includes('recent-1'));
      assert.ok(!ids.includes('expired-1') && !ids.includes('expired-2'));
    });
  });
}
