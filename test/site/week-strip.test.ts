/**
 * The free-times page as a week strip (issue 19 item 3), without JavaScript, on both databases:
 * seven days with their free-time counts (a day without free times shown but not a link, today
 * marked), the chosen day's times as hold buttons, weeks either side as plain links that stop at
 * this week and at the lawyer's horizon, bad `week`/`day` values shown as the default (never a
 * 500), and the strip in Arabic, right to left.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';

const SITE = 'https://consulta.example';
// The test clock: Monday 23 November 2026, 09:00 in Madrid. The lawyer works weekdays 9–14.
const MONDAY = '2026-11-23';

/** The strip's days: date (from the link or the label), whether a link, whether current, classes. */
function stripDays(html: string): Array<{ cls: string; href: string | null; current: boolean; label: string }> {
  const nav = /<nav class="week-strip"[\s\S]*?<\/nav>/.exec(html)?.[0];
  assert.ok(nav, 'the page has a week strip');
  return [...nav.matchAll(/<li class="([^"]*)">([\s\S]*?)<\/li>/g)].map(([, cls, inner]) => ({
    cls: cls!,
    href: /<a href="([^"]+)"/.exec(inner!)?.[1]?.replaceAll('&amp;', '&') ?? null,
    current: /aria-current="date"/.test(inner!),
    label: /class="visually-hidden">([^<]+)</.exec(inner!)?.[1] ?? '',
  }));
}
const slotDates = (html: string) => [...new Set([...html.matchAll(/name="slot" value="(\d{4}-\d{2}-\d{2})\|/g)].map((m) => m[1]))];
const pagerLink = (html: string, rel: 'prev' | 'next') => new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replaceAll('&amp;', '&') ?? null;

for (const target of databaseTargets()) {
  describe(`the free-times week strip without JavaScript (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let ip = 0;

    before(async () => {
      ctx = await createTestContext(target, { config: { siteUrl: SITE, baseUrl: `${SITE}/api/v1`, trustProxy: ['127.0.0.1'] } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Nadia El Amrani' })])) as [string];
      await ctx.database.db.updateTable('lawyers').set({ horizon_days: 14 }).where('id', '=', lawyer).execute();
    });
    after(async () => ctx?.close());

    const browser = (lang = 'en') => new SiteClient(ctx.app.fastify, SITE, { 'accept-language': lang, 'x-forwarded-for': `198.51.100.${++ip}` });
    const book = (query = '') => `/lawyers/${lawyer}/book${query}`;

    it('shows this week: seven days, the weekend shown but not selectable, today marked, the first day with free times chosen and only its times as buttons', async () => {
      const res = await browser().get(book());
      assert.equal(res.statusCode, 200);
      const days = stripDays(res.body);
      assert.equal(days.length, 7);
      assert.match(days[0]!.cls, /is-today/);
      assert.match(days[0]!.label, /today/);
      // Saturday and Sunday: no link, marked empty, and saying so.
      for (const d of days.slice(5)) {
        assert.equal(d.href, null);
        assert.match(d.cls, /is-empty/);
        assert.match(d.label, /no free times/);
      }
      // Weekdays link to themselves and say how many free times they have.
      for (const d of days.slice(1, 5)) {
        assert.match(d.href ?? '', new RegExp(`\\?week=${MONDAY}&day=2026-11-2[4-7]$`));
        assert.match(d.label, /\b5 free times\b/);
      }
      const current = days.filter((d) => d.current);
      assert.equal(current.length, 1, 'exactly one day is aria-current');
      const chosen = /day=(\d{4}-\d{2}-\d{2})/.exec(current[0]!.href!)![1]!;
      assert.deepEqual(slotDates(res.body), [chosen]);
      assert.ok(chosen >= MONDAY && chosen <= '2026-11-27');
      // Not before this week; a next week exists.
      assert.equal(pagerLink(res.body, 'prev'), null);
      assert.equal(pagerLink(res.body, 'next'), book('?week=2026-11-30'));
    });

    it('chooses a day and moves between weeks with plain links, up to the lawyer\'s horizon and no further', async () => {
      const c = browser();
      const thursday = await c.get(book(`?week=${MONDAY}&day=2026-11-26`));
      assert.deepEqual(slotDates(thursday.body), ['2026-11-26']);
      assert.match(stripDays(thursday.body)[3]!.cls, /is-selected/);

      const next = await c.get(book('?week=2026-11-30&day=2026-12-02'));
      assert.equal(next.statusCode, 200);
      assert.deepEqual(slotDates(next.body), ['2026-12-02']);
      assert.equal(pagerLink(next.body, 'prev'), book(`?week=${MONDAY}`));
      // No day of that week is today.
      assert.ok(stripDays(next.body).every((d) => !/is-today/.test(d.cls)));

      // Following "next week" ends: the horizon (14 days) stops the links.
      let url: string | null = book();
      const weeks: string[] = [];
      while (url && weeks.length < 10) {
        weeks.push(url);
        url = pagerLink((await c.get(url)).body, 'next');
      }
      assert.ok(weeks.length >= 2 && weeks.length <= 3, `weeks reachable: ${weeks.join(', ')}`);
      const last = await c.get(weeks.at(-1)!);
      assert.equal(pagerLink(last.body, 'next'), null);
    });

    it('takes a week without free times as it is: the days shown, none selectable, and says so', async () => {
      const res = await browser().get(book('?week=2027-01-04'));
      assert.equal(res.statusCode, 200);
      const days = stripDays(res.body);
      assert.equal(days.length, 7);
      assert.ok(days.every((d) => d.href === null && /is-empty/.test(d.cls)));
      assert.deepEqual(slotDates(res.body), []);
      assert.match(pageText(res.body), /No free times this week/);
      assert.equal(pagerLink(res.body, 'next'), null);
      assert.equal(pagerLink(res.body, 'prev'), book('?week=2026-12-28'));
    });

    it('shows the default for bad week and day values, never an error', async () => {
      const c = browser();
      const bad = [
        '?week=garbage',
        '?week=2026-02-30',
        '?week=2026-13-01',
        '?week=2020-01-06&day=2020-01-07',
        '?week=9999-12-27',
        '?week=2026-11-23&day=2026-11-28',
        '?week=2026-11-23&day=2026-12-02',
        '?week=2026-11-23&day=%3Cscript%3E',
        '?week=2026-11-23&week=2026-11-30',
        '?day[]=x&week[a]=1',
        `?week=${'9'.repeat(5000)}`,
        '?start_date=yesterday',
      ];
      const fallback = slotDates((await c.get(book())).body);
      for (const q of bad) {
        const res = await c.get(book(q));
        assert.equal(res.statusCode, 200, q);
        const days = stripDays(res.body);
        assert.match(days[0]!.cls, /is-today/, `${q}: this week`);
        assert.deepEqual(slotDates(res.body), fallback, `${q}: the first day with free times`);
        assert.doesNotMatch(res.body, /<script>/);
      }
      // Another lawyer's id, or a malformed one, is the 404 page as before.
      assert.equal((await c.get('/lawyers/00000000-0000-4000-8000-000000000000/book?week=2026-11-30')).statusCode, 404);
      assert.equal((await c.get('/lawyers/nope/book?week=2026-11-30')).statusCode, 404);
    });

    it('holds a time straight from the chosen day\'s buttons', async () => {
      const c = browser();
      const page = await c.get(book('?week=2026-11-30&day=2026-12-01'));
      const slot = /name="slot" value="([^"]+)"/.exec(page.body)![1]!;
      assert.match(slot, /^2026-12-01\|/);
      const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)![1]!;
      const res = await c.post(book(), { slot, nonce });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /^\/confirm\//);
    });

    it('in Arabic: right to left, the strip\'s labels and pager in Arabic, nothing in English', async () => {
      const res = await browser('ar').get(book('?week=2026-11-30'));
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<html lang="ar" dir="rtl"/);
      const days = stripDays(res.body);
      assert.equal(days.length, 7);
      assert.match(days[0]!.label, /مواعيد متاحة|موعد/);
      assert.match(days[5]!.label, /لا مواعيد متاحة/);
      const text = pageText(res.body);
      assert.match(text, /الأسبوع السابق/);
      assert.doesNotMatch(text, /free times?|Previous week|Next week|today/i);
    });
  });
}
