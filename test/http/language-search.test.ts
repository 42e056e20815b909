/**
 * Issue 26, the person's side (DESIGN.md §13), on both databases: video and phone consultations
 * are national (`include_remote`, `remote: true`, `remote_available`, the default unchanged for
 * API clients), the person's languages rank lawyers who speak one of them first
 * (`languages`, `languages_in_common`, `languages_matched`), MCP through the official SDK client
 * gives the same order and the same languages_in_common as REST (search, slots, hold), the
 * Account keeps a person's languages (a no-JS form with CSRF), and the hold page refuses to go on
 * to payment until a person told of a mismatch has answered it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClient, structured } from '../mcp/support.ts';
import { pageText } from '../support/site.ts';

const VIDEO = 'https://meet.example.com/room';

interface Summary {
  id: string;
  name: string;
  city: string;
  remote?: boolean;
  languages_in_common?: string[];
}
interface Page {
  total: number;
  has_more: boolean;
  lawyers: Summary[];
  remote_available?: number;
  languages_matched?: number;
}

for (const target of databaseTargets()) {
  describe(`language match and national video (${target.name})`, () => {
    let ctx: TestContext;
    const ids: Record<string, string> = {};
    const get = async (qs: string) => {
      const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/search?${qs}` });
      return { res, body: res.json() as Page };
    };
    const names = (p: Page) => p.lawyers.map((l) => l.name);

    before(async () => {
      ctx = await createTestContext(target);
      const review = (rating: number, n: number) => Array.from({ length: n }, () => ({ rating, comment: null, date: '2026-01-01T10:00:00Z' }));
      const records = [
        // Madrid: the best rated speaks only Spanish; one speaks Arabic; one meets in person only.
        lawyerRecord({ name: 'M Spanish top', city: 'madrid', languages: ['es'], formats: { video_url: VIDEO, office_address: 'Gran Vía 1, Madrid' }, reviews: review(5, 4) } as never),
        lawyerRecord({ name: 'M Arabic', city: 'madrid', languages: ['es', 'ar'], formats: { video_url: VIDEO }, reviews: review(3, 2) } as never),
        lawyerRecord({ name: 'M Office only', city: 'madrid', languages: ['es', 'en'], formats: { office_address: 'Calle Mayor 2, Madrid' }, reviews: review(4, 2) } as never),
        // Elsewhere: video/phone lawyers serve Madrid too; the in-person-only one never does.
        lawyerRecord({ name: 'S Arabic video', city: 'sevilla', languages: ['es', 'ar', 'fr'], formats: { video_url: VIDEO }, reviews: review(4, 3) } as never),
        lawyerRecord({ name: 'B French phone', city: 'barcelona', languages: ['es', 'fr'], formats: { phone: true }, reviews: review(5, 1) } as never),
        lawyerRecord({ name: 'V Office only', city: 'valencia', languages: ['es', 'ar'], formats: { office_address: 'Plaza 3, Valencia' }, reviews: review(5, 5) } as never),
      ];
      const written = await insertLawyers(ctx.database, records);
      records.forEach((r, i) => (ids[r.name] = written[i]!));
    });
    after(() => ctx.close());

    it('keeps `city` to the city by default (API clients see no change) and says how many more video/phone lawyers there are', async () => {
      const { res, body } = await get('city=madrid');
      assert.equal(res.statusCode, 200);
      assert.equal(body.total, 3);
      assert.deepEqual(names(body), ['M Spanish top', 'M Office only', 'M Arabic']);
      assert.equal(body.remote_available, 2);
      assert.ok(body.lawyers.every((l) => !('remote' in l) && !('languages_in_common' in l)), 'no new field without the new parameters');
      // No city: nothing to reach beyond, no count.
      assert.equal((await get('practice_area=arraigo-social')).body.remote_available, undefined);
    });

    it('include_remote=true adds lawyers from elsewhere who offer video or phone, marked remote: true; in-person stays in its city', async () => {
      const { body } = await get('city=madrid&include_remote=true');
      assert.equal(body.total, 5);
      assert.deepEqual(names(body), ['M Spanish top', 'B French phone', 'S Arabic video', 'M Office only', 'M Arabic']);
      const remote = Object.fromEntries(body.lawyers.map((l) => [l.name, l.remote]));
      assert.deepEqual(remote, { 'B French phone': true, 'M Spanish top': false, 'S Arabic video': true, 'M Office only': false, 'M Arabic': false });
      assert.ok(!names(body).includes('V Office only'));
      assert.equal(body.remote_available, undefined);
      // With a language filter: the one Arabic speaker in Madrid, and one more by video from Sevilla.
      const ar = (await get('city=madrid&language=ar')).body;
      assert.deepEqual([names(ar), ar.remote_available], [['M Arabic'], 1]);
      assert.deepEqual(names((await get('city=madrid&language=ar&include_remote=true')).body), ['S Arabic video', 'M Arabic']);
    });

    it('languages ranks lawyers who speak one of them first, then the requested sort, with languages_in_common on every result, across pages', async () => {
      const { body } = await get('city=madrid&include_remote=true&languages=ar,fr');
      assert.deepEqual(names(body), ['B French phone', 'S Arabic video', 'M Arabic', 'M Spanish top', 'M Office only']);
      assert.equal(body.languages_matched, 3);
      assert.deepEqual(
        body.lawyers.map((l) => l.languages_in_common),
        [['fr'], ['ar', 'fr'], ['ar'], [], []],
      );
      // Names work like codes; a price sort applies within each group.
      const byPrice = (await get('city=madrid&include_remote=true&languages=Arabic&sort=price_asc')).body;
      assert.deepEqual(new Set(names(byPrice).slice(0, 2)), new Set(['S Arabic video', 'M Arabic']));
      // One result a page walks the same order across the group boundary.
      const paged: string[] = [];
      for (let page = 1; page <= 6; page++) paged.push(...names((await get(`city=madrid&include_remote=true&languages=ar,fr&limit=1&page=${page}`)).body));
      assert.deepEqual(paged, names(body));
    });

    it('refuses an unknown language in `languages` with a problem naming it, and a non-boolean include_remote', async () => {
      const bad = await get('languages=ar,klingon');
      assert.equal(bad.res.statusCode, 400);
      assert.equal(bad.res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.match(bad.res.body, /klingon/);
      assert.match(bad.res.body, /\/query\/languages/);
      assert.equal((await get('city=madrid&include_remote=maybe')).res.statusCode, 400);
    });

    it('documents the new parameters and fields in the OpenAPI document', async () => {
      const doc = (await ctx.app.fastify.inject({ url: '/api/v1/openapi.json' })).json() as { paths: Record<string, { get: { parameters: Array<{ name: string }> } }>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
      const params = doc.paths['/lawyers/search']!.get.parameters.map((p) => p.name);
      assert.ok(params.includes('include_remote') && params.includes('languages'), params.join());
      const slotParams = doc.paths['/lawyers/{lawyerId}/availability']!.get.parameters.map((p) => p.name);
      assert.ok(slotParams.includes('languages'), slotParams.join());
      const summary = JSON.stringify(doc);
      assert.match(summary, /languages_in_common/);
      assert.match(summary, /remote_available/);
    });

    it('MCP (official SDK client) gives the same order and languages_in_common as REST, and says it on slots and holds', async () => {
      const agent = await connectedAgent(ctx, `agent-${target.name}@example.com`, 'directory:read slots:hold my-bookings:read');
      const client = await sdkClient(ctx, agent.accessToken);
      try {
        const args = { city: 'Madrid', include_remote: true, languages: 'ar,fr', limit: 25 };
        const mcp = structured<Page>(await client.callTool({ name: 'search_lawyers', arguments: args }));
        const rest = (await get('city=Madrid&include_remote=true&languages=ar,fr&limit=25')).body;
        assert.deepEqual(
          mcp.lawyers.map((l) => [l.id, l.remote, l.languages_in_common]),
          rest.lawyers.map((l) => [l.id, l.remote, l.languages_in_common]),
        );
        assert.equal(mcp.total, rest.total);

        const slots = structured<{ slots: Array<{ date: string; start_time: string; end_time: string }>; languages_in_common: string[] }>(
          await client.callTool({ name: 'get_lawyer_availability', arguments: { lawyer_id: ids['M Spanish top'], languages: 'ar', start_date: '2026-11-24', end_date: '2026-11-24' } }),
        );
        assert.deepEqual(slots.languages_in_common, []);
        const s = slots.slots[0]!;
        const held = structured<{ booking_intent_id: string; languages_in_common: string[] }>(
          await client.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: ids['M Spanish top'], date: s.date, start_time: s.start_time, end_time: s.end_time, languages: 'ar' } }),
        );
        assert.deepEqual(held.languages_in_common, []);
        const intent = await ctx.database.db.selectFrom('booking_intents').selectAll().where('id', '=', held.booking_intent_id).executeTakeFirstOrThrow();
        assert.equal(intent.person_languages, '["ar"]');

        // Without `languages`, the account's languages are used.
        await ctx.database.db.insertInto('user_languages').values({ user_id: agent.person.userId, language: 'fr', position: 0 }).execute();
        const byAccount = structured<Page>(await client.callTool({ name: 'search_lawyers', arguments: { city: 'Madrid', include_remote: true } }));
        assert.equal(byAccount.lawyers[0]!.name, 'B French phone');
        assert.deepEqual(byAccount.lawyers[0]!.languages_in_common, ['fr']);
        // A bad language is the tool's invalid_request, not a crash.
        const bad = (await client.callTool({ name: 'search_lawyers', arguments: { languages: 'zz-top' } })) as { isError?: boolean };
        assert.equal(bad.isError, true);
      } finally {
        await client.close();
      }
    });

    it('REST availability takes `languages` too: the same slots, and the same languages_in_common as MCP; bad languages are a problem', async () => {
      const range = 'start_date=2026-11-24&end_date=2026-11-25';
      const availability = async (id: string, qs: string) => {
        const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${id}/availability?${qs}` });
        return { res, body: res.json() as { slots: unknown[]; languages_in_common?: string[] } };
      };
      const plain = await availability(ids['S Arabic video']!, range);
      assert.equal(plain.res.statusCode, 200, plain.res.body);
      assert.ok(plain.body.slots.length > 0);
      assert.equal('languages_in_common' in plain.body, false, 'no new field without the new parameter');
      const withLanguages = await availability(ids['S Arabic video']!, `${range}&languages=uk,French,ar`);
      assert.equal(withLanguages.res.statusCode, 200, withLanguages.res.body);
      assert.deepEqual(withLanguages.body.languages_in_common, ['fr', 'ar'], "the person's order, names read as codes");
      assert.deepEqual(withLanguages.body.slots, plain.body.slots);
      assert.deepEqual((await availability(ids['M Spanish top']!, `${range}&languages=ar`)).body.languages_in_common, [], 'empty: a mismatch');
      // Asked again: the same answer (a cached derivation must not mix up two lists).
      assert.deepEqual((await availability(ids['S Arabic video']!, `${range}&languages=ar`)).body.languages_in_common, ['ar']);
      assert.deepEqual((await availability(ids['S Arabic video']!, `${range}&languages=uk,French,ar`)).body.languages_in_common, ['fr', 'ar']);

      const bad = await availability(ids['S Arabic video']!, `${range}&languages=ar,klingon`);
      assert.equal(bad.res.statusCode, 400);
      assert.equal(bad.res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.match(bad.res.body, /klingon/);
      assert.match(bad.res.body, /\/query\/languages/);
      assert.equal((await availability(ids['S Arabic video']!, `${range}&languages=`)).res.statusCode, 400);
      assert.equal((await availability(ids['S Arabic video']!, `${range}&languages=ar,fr,en,uk,ro,de,it`)).res.statusCode, 400, 'at most 6');

      const agent = await connectedAgent(ctx, `slots-${target.name}@example.com`, 'directory:read');
      const client = await sdkClient(ctx, agent.accessToken);
      try {
        for (const [name, languages] of [['S Arabic video', 'uk,French,ar'], ['M Spanish top', 'ar'], ['B French phone', 'fr,es']] as const) {
          const rest = (await availability(ids[name]!, `${range}&languages=${languages}`)).body;
          const mcp = structured<{ slots: unknown[]; languages_in_common: string[] }>(
            await client.callTool({ name: 'get_lawyer_availability', arguments: { lawyer_id: ids[name], languages, start_date: '2026-11-24', end_date: '2026-11-25', include_unavailable: true, max_slots: 200 } }),
          );
          assert.deepEqual(mcp.languages_in_common, rest.languages_in_common, name);
          assert.deepEqual(mcp.slots, rest.slots, name);
        }
      } finally {
        await client.close();
      }
    });

    it('Account keeps the languages a person reads: the site language until edited, a no-JS form with CSRF, refusals said', async () => {
      const me = await signedIn(ctx, `langs-${target.name}@example.com`, { lang: 'es' });
      const page = await me.client.get('/account/languages');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<label for="f-language-0">Idioma 1<\/label>/);
      assert.match(page.body, /<option value="es" selected>/);
      assert.match(pageText(page.body), /usamos el idioma de la web/);
      // Ordered, several values of one field (a plain form), without JavaScript.
      const body = new URLSearchParams([['_csrf', me.client.csrf()], ['language', 'ar'], ['language', 'fr'], ['language', '']]).toString();
      const saved = await ctx.app.fastify.inject({
        method: 'POST',
        url: '/account/languages',
        payload: body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin', cookie: [...me.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const rows = await ctx.database.db.selectFrom('user_languages').select(['language', 'position']).where('user_id', '=', me.userId).orderBy('position').execute();
      assert.deepEqual(rows, [{ language: 'ar', position: 0 }, { language: 'fr', position: 1 }]);
      // An unknown code is a 400 page saying so; nothing changes.
      await me.client.get('/account/languages');
      const bad = await me.client.post('/account/languages', { language: 'xx' });
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /Elige idiomas de la lista/);
      // The attack: a cross-site form without the token changes nothing.
      const forged = await me.client.post('/account/languages', { language: 'ro', _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      assert.equal((await ctx.database.db.selectFrom('user_languages').select('language').where('user_id', '=', me.userId).orderBy('position').execute()).map((r) => r.language).join(), 'ar,fr');
      // The search ranks by them for this person.
      const home = await me.client.get('/?city=madrid');
      const text = pageText(home.body);
      assert.ok(text.indexOf('B French phone') < text.indexOf('M Spanish top') && text.indexOf('S Arabic video') < text.indexOf('M Spanish top'), text.slice(0, 2000));
      assert.match(text, /Habla árabe y francés/);
      assert.match(text, /Videollamada o teléfono · desde Sevilla/);
    });

    it('tells of a mismatch from the profile to the hold page, and refuses to go on without the answer', async () => {
      const me = await signedIn(ctx, `mismatch-${target.name}@example.com`, { lang: 'en' });
      await ctx.database.db.insertInto('user_languages').values({ user_id: me.userId, language: 'ar', position: 0 }).execute();
      const lawyer = ids['M Spanish top']!;
      const profile = pageText((await me.client.get(`/lawyers/${lawyer}`)).body);
      assert.match(profile, /This lawyer does not speak Arabic/);
      assert.match((await me.client.get(`/lawyers/${lawyer}`)).body, /href="\/\?city=madrid&amp;language=ar&amp;include_remote=true"/);
      assert.match(pageText((await me.client.get(`/lawyers/${lawyer}/book`)).body), /This lawyer does not speak Arabic/);
      // A lawyer who speaks Arabic: no notice.
      assert.doesNotMatch(pageText((await me.client.get(`/lawyers/${ids['M Arabic']}`)).body), /does not speak/);

      const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '11'), { remoteAddress: '192.0.2.77' });
      assert.equal(res.statusCode, 201, res.body);
      const token = tokenOf(res.json().confirmation_url);
      const hold = await me.client.get(`/confirm/${token}`);
      assert.match(pageText(hold.body), /This lawyer does not speak Arabic/);
      assert.match(hold.body, /name="language_ack" value="interpreter"/);
      assert.match(hold.body, /<label for="f-person_name">Your name<\/label>/);
      // Paying is refused until the question is answered (a single-format hold skips the choices).
      assert.equal((await me.client.get(`/confirm/${token}/pay`)).headers.location, `/confirm/${token}#choices-heading`);
      const refused = await me.client.post(`/confirm/${token}/choices`, { format: 'video', note: 'مرحبا' });
      assert.equal(refused.statusCode, 400);
      assert.match(pageText(refused.body), /Choose how you will talk with the lawyer/);
      const intentOf = () => ctx.database.db.selectFrom('booking_intents').selectAll().where('confirmation_token', '=', token).executeTakeFirstOrThrow();
      assert.equal((await intentOf()).language_ack ?? null, null);
      assert.equal((await me.client.post(`/confirm/${token}/pay`, { number: '4242424242424242', expiry: '12/30', cvc: '123', name: 'X' })).headers.location, `/confirm/${token}#choices-heading`);

      const ok = await me.client.post(`/confirm/${token}/choices`, { format: 'video', language_ack: 'interpreter', person_name: 'Amina Haddad', note: 'أحتاج إلى مساعدة بخصوص التجذر الاجتماعي في مدريد، شكرا جزيلا' });
      assert.equal(ok.statusCode, 303, ok.body);
      const intent = await intentOf();
      assert.deepEqual([intent.language_ack, intent.person_name, intent.person_languages, intent.note_language], ['interpreter', 'Amina Haddad', '["ar"]', 'ar']);
      // Asked once: the account keeps the name.
      assert.equal((await ctx.database.db.selectFrom('users').select('name').where('id', '=', me.userId).executeTakeFirstOrThrow()).name, 'Amina Haddad');
      const pay = await me.client.get(`/confirm/${token}/pay`);
      assert.equal(pay.statusCode, 200);
      assert.match(pageText(pay.body), /This lawyer does not speak Arabic.*You said you will bring an interpreter/);
      const paid = await me.client.post(`/confirm/${token}/pay`, { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Amina Haddad' });
      assert.equal(paid.statusCode, 303);
      const consultation = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', intent.id).executeTakeFirstOrThrow();
      assert.deepEqual([consultation.language_ack, consultation.person_name, consultation.person_languages, consultation.note_language], ['interpreter', 'Amina Haddad', '["ar"]', 'ar']);
    });
  });
}
