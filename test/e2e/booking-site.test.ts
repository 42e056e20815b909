/**
 * The `confirmed` transition end to end, in Chromium, on SQLite and on PostgreSQL: an intent made
 * over the API with a live key → its confirmation_url → sign-in with the code read from a real
 * SMTP listener → the demo checkout → "confirmed"; then polling, the signed webhook (once), the
 * receipt with its .ics, "My consultations", and what must never happen (a second charge, a
 * confirmation after expiry, one person seeing another's consultation).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { testConfig } from '../support/app.ts';
import { axeViolations, browserUnavailable, freePort, launchBrowser, PHONE, continueToPay } from '../support/browser.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR, startReceiver, webhookKit, type Receiver } from '../webhooks/support.ts';

const unavailable = browserUnavailable();
const EVERY_DAY_8_TO_20 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const }));

for (const target of databaseTargets()) {
  describe(`booking on the site, end to end (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let smtp: SmtpListener;
    let receiver: Receiver;
    let clock: ManualClock;
    let site: string;
    let lawyerId: string;
    let apiKey: string;
    let webhookSecret: string;
    const slotsUsed = new Set<string>();
    const seenCodes = new Set<string>();
    /** The confirmation link of the booking the first test pays (the receipt's link). */
    let paidLink = '';

    /** Every mail the SMTP listener received, parsed. */
    const mails = async (): Promise<ParsedMail[]> => Promise.all(smtp.messages.map((m) => simpleParser(m.raw)));
    const mailsTo = async (to: string) => (await mails()).filter((m) => (Array.isArray(m.to) ? m.to : [m.to]).some((a) => a?.text.includes(to)));
    async function waitForMail(to: string, match: (m: ParsedMail) => boolean, timeoutMs = 10_000): Promise<ParsedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await mailsTo(to)).filter(match).at(-1);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching mail to ${to}`);
        await smtp.waitFor(smtp.messages.length + 1, 500).catch(() => {});
      }
    }

    /** A free slot of the lawyer, not used by an earlier test. */
    async function freeSlot(): Promise<{ date: string; start_time: string; end_time: string }> {
      const a = (await (await fetch(`${server.url}/api/v1/lawyers/${lawyerId}/availability`)).json()) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
      const slot = a.slots.find((s) => s.available && !slotsUsed.has(`${s.date} ${s.start_time}`));
      assert.ok(slot, 'a free slot');
      slotsUsed.add(`${slot.date} ${slot.start_time}`);
      return { date: slot.date, start_time: slot.start_time, end_time: slot.end_time };
    }

    /** An intent created over the REST API with the live key: its id and confirmation_url. */
    async function createIntent(): Promise<{ id: string; url: string; token: string }> {
      const slot = await freeSlot();
      const res = await fetch(`${server.url}/api/v1/bookings/initiate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ lawyer_id: lawyerId, ...slot, source: 'api' }),
      });
      assert.equal(res.status, 201);
      const body = (await res.json()) as { booking_intent_id: string; confirmation_url: string };
      return { id: body.booking_intent_id, url: body.confirmation_url, token: body.confirmation_url.split('/').pop()! };
    }

    async function signIn(page: Page, email: string, onCodePage?: () => Promise<void>): Promise<void> {
      await page.fill('#f-email', email);
      await page.locator('form[action="/sign-in"] button[type="submit"]').click();
      await page.waitForURL('**/sign-in/code');
      await onCodePage?.();
      const before = new Set(seenCodes);
      const mail = await waitForMail(email, (m) => /sign-in code|código/i.test(m.subject ?? '') && !before.has(m.messageId ?? ''));
      seenCodes.add(mail.messageId ?? '');
      const code = /\b(\d{6})\b/.exec(mail.text ?? '')![1]!;
      await page.fill('#f-code', code);
      await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
    }

    async function fillCard(page: Page, number: string): Promise<void> {
      await page.fill('#f-number', number);
      await page.fill('#f-expiry', '12/30');
      await page.fill('#f-cvc', '123');
    }
    const payButton = (page: Page) => page.locator('form[action$="/pay"] button[type="submit"]');
    async function payWith(page: Page, number: string): Promise<void> {
      await fillCard(page, number);
      await payButton(page).click();
    }

    const phone = (lang: 'en' | 'es' = 'en'): Promise<BrowserContext> => browser.newContext({ viewport: PHONE, locale: lang === 'en' ? 'en-GB' : 'es-ES' });

    before(async () => {
      db = await target.create();
      await db.database.close();
      smtp = await startSmtp();
      receiver = await startReceiver();
      const port = await freePort();
      site = `http://localhost:${port}`;
      clock = new ManualClock(Date.now());
      server = await startServer(
        testConfig({
          port,
          host: '127.0.0.1',
          siteUrl: site,
          baseUrl: `${site}/api/v1`,
          databaseUrl: db.url,
          smtpUrl: smtp.url,
          webhookAllowInsecureTargets: true,
          webhookDispatchIntervalMs: 50,
          sweepIntervalMs: 100,
          rateLimitMultiplier: 1000,
        }),
        { clock },
      );
      [lawyerId] = (await insertLawyers(
        server.database,
        [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', weekly_hours: EVERY_DAY_8_TO_20, consultation_fee_cents: 6000, platform_commission_percent: 12, contact_email: 'nadia@despacho.example' })],
        clock.now(),
      )) as [string];
      server.app.services.directoryCache.invalidate();
      const created = await server.app.services.keys.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { mode: 'live' });
      apiKey = created.token;
      const kit = webhookKit(server.database, { clock });
      const endpoint = await kit.service.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { url: `${receiver.url}/hooks` });
      webhookSecret = endpoint.secret;
      await kit.close();
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await receiver?.close();
      await smtp?.close();
      await db?.drop();
    });

    it('API intent → confirmation_url → code from the email → demo card → confirmed, in at most 5 page loads (the note step included)', async () => {
      const intent = await createIntent();
      const context = await phone();
      const page = await context.newPage();
      let loads = 0;
      page.on('load', () => loads++);
      const violations: string[] = [];
      await page.goto(intent.url);
      assert.match(await page.locator('h1').innerText(), /Confirm your consultation/);
      assert.match(await page.locator('main').innerText(), /€60\.00/);
      violations.push(...(await axeViolations(page, 'confirm (signed out)')));
      await signIn(page, 'ana@example.com', async () => void violations.push(...(await axeViolations(page, 'code'))));
      // Back on the hold page: its note (and number) before paying (issue 25 item 14).
      await continueToPay(page);
      violations.push(...(await axeViolations(page, 'pay')));
      assert.match(await page.locator('.badge.demo').innerText(), /Demonstration/);
      await payWith(page, '4242 4242 4242 4242');
      await page.waitForURL(`**/confirm/${intent.token}`);
      assert.match(await page.locator('h1').innerText(), /Your consultation is booked/);
      violations.push(...(await axeViolations(page, 'confirmed')));
      assert.ok(loads <= 5, `from confirmation_url to confirmed took ${loads} page loads`);
      assert.equal(violations.length, 0, violations.join('\n'));

      // The integrator polls: confirmed, with confirmed_at.
      const polled = (await (await fetch(`${server.url}/api/v1/booking-intents/${intent.id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { status: string; confirmed_at: string | null };
      assert.equal(polled.status, 'confirmed');
      assert.ok(polled.confirmed_at);

      // The webhook arrives once, signed (Standard Webhooks).
      const [hook] = await receiver.waitFor(1, 10_000);
      const payload = new Webhook(webhookSecret).verify(hook!.body, hook!.headers) as { type: string; data: { booking_intent_id: string; status: string } };
      assert.equal(payload.type, 'booking_intent.confirmed');
      assert.deepEqual([payload.data.booking_intent_id, payload.data.status], [intent.id, 'confirmed']);

      // The receipt carries a calendar invitation; the lawyer is told.
      const receipt = await waitForMail('ana@example.com', (m) => m.attachments.some((a) => a.filename?.endsWith('.ics')));
      const ics = receipt.attachments.find((a) => a.filename?.endsWith('.ics'))!.content.toString('utf8');
      assert.match(ics, /BEGIN:VCALENDAR[\s\S]*BEGIN:VEVENT[\s\S]*DTSTART[\s\S]*END:VEVENT[\s\S]*END:VCALENDAR/);
      await waitForMail('nadia@despacho.example', () => true);

      // The receipt's link (and the invitation's URL) show the booking to its owner, signed in.
      const link = /https?:\/\/\S+\/confirm\/[A-Za-z0-9_-]+/.exec(receipt.text ?? '')![0];
      assert.equal(link, intent.url);
      assert.match(ics, new RegExp(`URL:${link.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      paidLink = link;
      await page.goto(link);
      assert.match(await page.locator('h1').innerText(), /Your consultation is booked/);
      assert.match(await page.locator('main').innerText(), /Nadia El Amrani[\s\S]*€60\.00/);
      // The same link in a browser that is not signed in: the sign-in page, nothing of the
      // booking; signing in there as the owner brings the booking back.
      const elsewhere = await phone();
      const other = await elsewhere.newPage();
      await other.goto(link);
      assert.match(await other.locator('h1').innerText(), /Sign in/);
      const signedOutText = await other.locator('main').innerText();
      assert.match(signedOutText, /This booking has been paid/);
      assert.ok(!/Nadia|€60|60\.00/.test(await other.content()), 'no detail of the booking signed out');
      violations.push(...(await axeViolations(other, 'paid booking, signed out')));
      await signIn(other, 'ana@example.com');
      await other.waitForURL(`**/confirm/${intent.token}`);
      assert.match(await other.locator('main').innerText(), /Nadia El Amrani/);
      await elsewhere.close();

      // "My consultations" lists it, with its .ics.
      await page.goto(`${site}/consultations`);
      assert.match(await page.locator('main').innerText(), /Nadia El Amrani/);
      violations.push(...(await axeViolations(page, 'my consultations')));
      const detail = page.locator('main a[href^="/consultations/"]').first();
      const href = (await detail.getAttribute('href'))!;
      const download = await page.request.get(`${site}${href}.ics`);
      assert.equal(download.status(), 200);
      assert.match(await download.text(), /BEGIN:VCALENDAR/);
      assert.equal(violations.length, 0, violations.join('\n'));
      await context.close();

      // Still exactly one webhook delivery for it.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.requests.filter((r) => r.body.includes(intent.id)).length, 1);
    });

    it('a declined card leaves the hold pending; a double tap on pay charges once', async () => {
      const intent = await createIntent();
      const context = await phone();
      const page = await context.newPage();
      await page.goto(intent.url);
      await signIn(page, 'ana@example.com');
      await continueToPay(page);
      await payWith(page, '4000 0000 0000 0002');
      assert.match(await page.locator('[role="alert"]').first().innerText(), /declined/);
      assert.equal((await axeViolations(page, 'pay, declined')).join('\n'), '');
      const polled = (await (await fetch(`${server.url}/api/v1/booking-intents/${intent.id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { status: string };
      assert.equal(polled.status, 'pending');
      await fillCard(page, '4242 4242 4242 4242');
      await payButton(page).dblclick();
      await page.waitForURL(`**/confirm/${intent.token}`);
      assert.match(await page.locator('h1').innerText(), /booked/);
      const attempts = await server.database.db.selectFrom('payment_attempts').select(['status']).where('booking_intent_id', '=', intent.id).execute();
      assert.equal(attempts.filter((a) => a.status === 'captured').length, 1, JSON.stringify(attempts));
      await context.close();
    });

    it('another person signed in cannot see the first person\'s consultation', async () => {
      const own = await server.database.db.selectFrom('consultations').select('id').limit(1).executeTakeFirstOrThrow();
      const context = await phone('es');
      const page = await context.newPage();
      await page.goto(`${site}/sign-in`);
      const violations = await axeViolations(page, 'sign-in (es)');
      await signIn(page, 'bob@example.com', async () => void violations.push(...(await axeViolations(page, 'code (es)'))));
      await page.waitForURL('**/consultations');
      assert.match(await page.locator('main').innerText(), /Todavía no tienes consultas/);
      violations.push(...(await axeViolations(page, 'my consultations, empty (es)')));
      // The signed-in pages of a hold, in Spanish.
      const intent = await createIntent();
      await page.goto(intent.url);
      violations.push(...(await axeViolations(page, 'confirm, signed in (es)')));
      await page.goto(`${intent.url}/pay`);
      violations.push(...(await axeViolations(page, 'pay (es)')));
      assert.equal(violations.join('\n'), '');
      // The first person's paid booking, by its receipt link: another account's, nothing shown.
      assert.ok(paidLink, 'the first test paid a booking');
      const foreign = await page.goto(paidLink);
      assert.equal(foreign?.status(), 403);
      assert.match(await page.locator('h1').innerText(), /Esta reserva es de otra cuenta/);
      assert.ok(!/Nadia|60,00/.test(await page.content()), 'no detail of another account\'s booking');
      assert.equal((await axeViolations(page, 'paid booking, another account (es)')).join('\n'), '');
      const res = await page.goto(`${site}/consultations/${own.id}`);
      assert.equal(res?.status(), 404);
      assert.equal((await page.request.get(`${site}/consultations/${own.id}.ics`)).status(), 404);
      await context.close();
    });

    it('an expired hold is never confirmed, and nothing is charged', async () => {
      const intent = await createIntent();
      const context = await phone();
      const page = await context.newPage();
      await page.goto(intent.url);
      await signIn(page, 'ana@example.com');
      await continueToPay(page);
      await fillCard(page, '4242 4242 4242 4242');
      clock.advance(16 * 60_000);
      await payButton(page).click();
      await page.waitForURL(`**/confirm/${intent.token}`);
      assert.match(await page.locator('main').innerText(), /expired|Nothing was charged/);
      const row = await server.database.db.selectFrom('booking_intents').select(['status', 'confirmed_at']).where('id', '=', intent.id).executeTakeFirstOrThrow();
      assert.notEqual(row.status, 'confirmed');
      const captured = await server.database.db.selectFrom('payment_attempts').select('id').where('booking_intent_id', '=', intent.id).where('status', '=', 'captured').execute();
      assert.equal(captured.length, 0);
      await context.close();
    });
  });
}
