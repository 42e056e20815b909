/**
 * Holidays (issue 26 item 7) through the real app on both databases: Spain's national holidays and
 * her autonomous community's are closed by default — 8 December (national) and 7 December 2026
 * (Madrid's substitute for the Constitution day, regional only) offer nothing to a Madrid lawyer in
 * REST availability, MCP's get_lawyer_availability (through the official SDK client, as an agent
 * calls it) and the site's booking page, while a Barcelona lawyer works on
 * 7 December; the portal shows them with a one-click "open this day" (no JavaScript, CSRF) that
 * offers the day again, closing it again closes it, and a local holiday she adds closes its day.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedHolidayDates, publicHolidays, regionOfCommunity } from '../../src/domain/lawyers/holidays.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';
import { connectedAgent, sdkClient, structured } from '../mcp/support.ts';
import type { Client } from '@modelcontextprotocol/client';

describe('holiday data (date-holidays, cached per region and year)', () => {
  it('national, regional and the Canaries', () => {
    assert.equal(regionOfCommunity('Comunidad de Madrid'), 'MD');
    assert.equal(regionOfCommunity('Canarias'), 'CN');
    assert.equal(regionOfCommunity('Cataluña'), 'CT');
    assert.equal(regionOfCommunity('Atlántida'), null);
    assert.ok(publicHolidays(null, 2026).has('2026-12-08'));
    assert.ok(!publicHolidays(null, 2026).has('2026-12-07'), 'national list: no Madrid substitute');
    assert.ok(publicHolidays('MD', 2026).has('2026-12-07'));
    assert.ok(publicHolidays('CT', 2026).has('2026-09-11'), 'la Diada');
    assert.ok(publicHolidays('CN', 2026).has('2026-05-30'), 'Día de Canarias');
    assert.equal(publicHolidays('MD', 2026), publicHolidays('MD', 2026), 'computed once');
    assert.deepEqual([...closedHolidayDates('MD', '2026-12-06', '2026-12-10', [{ date: '2026-12-08', choice: 'open' }, { date: '2026-12-10', choice: 'closed' }])].sort(), ['2026-12-06', '2026-12-07', '2026-12-10']);
  });
});

for (const target of databaseTargets()) {
  describe(`holidays in her calendar (${target.name})`, () => {
    let ctx: TestContext;
    let lucia: SignedIn;
    let madrid: string;
    let barcelona: string;
    let mcp: Client;

    before(async () => {
      ctx = await createTestContext(target); // Monday 2026-11-23
      [madrid, barcelona] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', city: 'madrid' }), lawyerRecord({ name: 'Jordi Puig', city: 'barcelona' })])) as [string, string];
      lucia = await signedIn(ctx, `lucia-hol-${target.name}@example.com`);
      await ctx.database.db.updateTable('lawyers').set({ user_id: lucia.userId }).where('id', '=', madrid).execute();
      const agent = await connectedAgent(ctx, `agent-hol-${target.name}@example.com`, 'directory:read');
      mcp = await sdkClient(ctx, agent.accessToken);
    });
    after(async () => {
      await mcp?.close();
      await ctx?.close();
    });

    const restDays = async (id: string) => {
      const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${id}/availability?start_date=2026-12-07&end_date=2026-12-09` });
      assert.equal(res.statusCode, 200, res.body);
      return new Set((res.json().slots as Array<{ date: string }>).map((s) => s.date));
    };
    const siteOffers = async (id: string, date: string) => (await lucia.client.get(`/lawyers/${id}/book?week=2026-12-07&day=${date}`)).body.includes(`value="${date}|`);
    const mcpDays = async (id: string) => {
      const result = await mcp.callTool({ name: 'get_lawyer_availability', arguments: { lawyer_id: id, start_date: '2026-12-07', end_date: '2026-12-09' } });
      return new Set(structured<{ slots: Array<{ date: string; available: boolean }> }>(result).slots.filter((s) => s.available).map((s) => s.date));
    };
    const click = async (date: string, action: string) => {
      await lucia.client.get('/lawyer/calendar');
      return lucia.client.post('/lawyer/calendar/holidays', { date, action });
    };

    it('8 December and her region\'s 7 December are closed by default: REST, the site and MCP agree', async () => {
      assert.deepEqual([...(await restDays(madrid))], ['2026-12-09']);
      assert.deepEqual([...(await restDays(barcelona))].sort(), ['2026-12-07', '2026-12-09'], 'Catalonia works on 7 December');
      assert.deepEqual([...(await mcpDays(madrid))], ['2026-12-09']);
      assert.deepEqual([...(await mcpDays(barcelona))].sort(), ['2026-12-07', '2026-12-09']);
      assert.equal(await siteOffers(madrid, '2026-12-07'), false);
      assert.equal(await siteOffers(madrid, '2026-12-08'), false);
      assert.equal(await siteOffers(madrid, '2026-12-09'), true);
      // Her portal lists them, each with its one-click form.
      const page = await lucia.client.get('/lawyer/calendar');
      const text = pageText(page.body);
      assert.match(text, /Tuesday, 8 December 2026 · La inmaculada concepción\s?: closed \(holiday\)/i);
      assert.match(text, /Monday, 7 December 2026/);
      assert.match(page.body, /action="\/lawyer\/calendar\/holidays"/);
    });

    it('"open this day" offers it again; closing it again closes it; a local holiday closes its day; attacks change nothing', async () => {
      // No CSRF token: refused.
      await lucia.client.get('/lawyer/calendar');
      assert.equal((await lucia.client.post('/lawyer/calendar/holidays', { date: '2026-12-08', action: 'open', _csrf: 'forged' })).statusCode, 403);
      assert.equal(await siteOffers(madrid, '2026-12-08'), false);
      // Opening a day that is no holiday, or nonsense: the 400 page, nothing stored.
      assert.equal((await click('2026-12-09', 'open')).statusCode, 400);
      assert.equal((await click('not-a-date', 'open')).statusCode, 400);

      const opened = await click('2026-12-08', 'open');
      assert.equal(opened.statusCode, 303);
      assert.ok((await restDays(madrid)).has('2026-12-08'), 'REST offers it');
      assert.equal(await siteOffers(madrid, '2026-12-08'), true, 'the site offers it');
      assert.ok((await mcpDays(madrid)).has('2026-12-08'), 'MCP offers it');
      assert.ok(!(await mcpDays(madrid)).has('2026-12-07'), 'only the day she opened');
      assert.match(pageText((await lucia.client.get('/lawyer/calendar')).body), /open: you work this day/);
      assert.ok(!(await restDays(barcelona)).has('2026-12-08'), 'only hers');

      assert.equal((await click('2026-12-08', 'close')).statusCode, 303);
      assert.ok(!(await restDays(madrid)).has('2026-12-08'));
      assert.ok(!(await mcpDays(madrid)).has('2026-12-08'));
      assert.equal(await siteOffers(madrid, '2026-12-08'), false);

      assert.equal((await click('2026-12-09', 'close')).statusCode, 303);
      assert.equal((await restDays(madrid)).size, 0, 'her local holiday closes 9 December');
      assert.equal((await mcpDays(madrid)).size, 0);
      assert.equal(await siteOffers(madrid, '2026-12-09'), false);
      assert.match(pageText((await lucia.client.get('/lawyer/calendar')).body), /closed \(local holiday you added\)/);
      assert.equal((await click('2026-12-09', 'reset')).statusCode, 303);
      assert.ok((await restDays(madrid)).has('2026-12-09'));
      assert.ok((await mcpDays(madrid)).has('2026-12-09'));
    });
  });
}
