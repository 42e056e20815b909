/**
 * Issue 18's "Done when", walked end to end in Chromium against a real server on
 * http://localhost with a real SMTP listener, on SQLite and PostgreSQL: a new lawyer signs in by
 * emailed code and applies at /join → an operator (passkey, stepped up) verifies her from the
 * console's queue with a note → in her portal she sets weekly hours, a buffer and a day off, her
 * fee and her consultation (length, phone) and is listed → the API's availability shows exactly
 * the times those imply, none on the day off → a person books one and pays on the site (demo
 * provider) → the booking is in her /lawyer/consultations and in her subscription feed (same UID
 * as the person's invitation) → she cancels with a reason → the person is refunded, emailed
 * (METHOD:CANCEL, same UID, higher SEQUENCE) and the time is free again in the API.
 *
 * A shorter variant with PAYMENT_PROVIDER=stripe against the stand-in (the real `stripe` SDK):
 * the person pays through Checkout, she cancels, and exactly one refund reaches the stand-in.
 *
 * Every portal page of the walk is checked with axe-core and photographed at phone (390 px) and
 * desktop width in Spanish and English (SQLite run), to /tmp/shots-h2/. Elements are found by
 * label, role or text (and form field ids), not by the layout around them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import type { Browser, Cookie, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { attemptsOf, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } from '../payments/support.ts';
import { testConfig } from '../support/app.ts';
import { madridDate } from '../support/booking.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, continueToPay, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie, makeOperator } from '../support/dashboard.ts';
import { browserDatabaseTarget, type DatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { givePasskey } from '../support/operator.ts';
import { StripeStandIn } from '../support/stripe-stand-in.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-h2';
const CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'María García' };
/** Her hours every day, 09:00–13:00; 45-minute consultations with 30 minutes between them. */
const EXPECTED = ['09:00:00-09:45:00', '10:15:00-11:00:00', '11:30:00-12:15:00'];
const BOOKED = { start: '10:15:00', end: '11:00:00' };

interface Slot {
  date: string;
  start_time: string;
  end_time: string;
  available: boolean;
}

/** Real time, bounded: for what another part of the system does after answering (mail, caches). */
async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An iCalendar text unfolded, and one property of its first VEVENT. */
function icsProp(ics: string, name: string): string | undefined {
  const text = ics.replace(/\r?\n[ \t]/g, '');
  return new RegExp(`^${name}(?:;[^:\\r\\n]*)?:(.*)$`, 'm').exec(text)?.[1]?.trim();
}

interface World {
  server: RunningServer;
  smtp: SmtpListener;
  site: string;
  browser: Browser;
  apiKey: string;
  problems: string[];
}

async function startWorld(db: TestDatabase, extra: Partial<Parameters<typeof testConfig>[0]> = {}): Promise<World> {
  const smtp = await startSmtp();
  const port = await freePort();
  const site = `http://localhost:${port}`;
  const server = await startServer(
    testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: db.url, rateLimitMultiplier: 1000, smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>', ...extra }),
    { clock: new ManualClock(Date.now()) },
  );
  await ensureReferenceData(server.database.db, new Date().toISOString());
  const { token } = await server.app.services.keys.create({ type: 'operator' }, { ownerEmail: `integrator-${port}@example.com` }, { mode: 'live' });
  return { server, smtp, site, browser: await launchBrowser(), apiKey: token, problems: [] };
}

async function stopWorld(w: World | undefined, db: TestDatabase | undefined): Promise<void> {
  await w?.browser.close();
  await w?.server.stop();
  await w?.smtp.close();
  await db?.drop();
}

/** The free times the API gives for one date, as `start-end` of the available ones, and all of them. */
async function availability(w: World, lawyerId: string, date: string): Promise<{ available: string[]; all: Slot[]; body: { consultation_fee_cents: number } }> {
  const res = await fetch(`${w.site}/api/v1/lawyers/${lawyerId}/availability?start_date=${date}&end_date=${date}`, { headers: { authorization: `Bearer ${w.apiKey}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { slots: Slot[]; consultation_fee_cents: number };
  return { available: body.slots.filter((s) => s.available).map((s) => `${s.start_time}-${s.end_time}`), all: body.slots, body };
}

/** The 6-digit code in the newest sign-in email to `email` that arrived after `seen` messages. */
async function codeFor(w: World, email: string, seen: number): Promise<string> {
  const mail = await eventually(`a sign-in code for ${email}`, async () => w.smtp.messages.slice(seen).find((m) => m.to.includes(email) && /\b\d{6}\b/.test(m.text)));
  return /\b(\d{6})\b/.exec(mail.text)![1]!;
}

/** Signs in by emailed code from a page showing the sign-in form (or /sign-in itself). */
async function signInByCode(w: World, page: Page, email: string): Promise<void> {
  const seen = w.smtp.messages.length;
  await page.fill('#f-email', email);
  await page.locator('form[action="/sign-in"] button[type="submit"]').click();
  await page.waitForURL('**/sign-in/code');
  await page.fill('#f-code', await codeFor(w, email, seen));
  await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/sign-in'));
}

/**
 * The page at `url` (a GET page of the portal) with the same session, at phone and desktop width,
 * in Spanish and English: axe-core and sideways overflow into `w.problems`, screenshots.
 */
async function survey(w: World, cookies: Cookie[], url: string, name: string): Promise<void> {
  for (const lang of ['es', 'en'] as const) {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const context = await w.browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB', timezoneId: 'Europe/Madrid' });
      try {
        await context.addCookies(cookies);
        const page = await context.newPage();
        const res = await page.goto(`${w.site}${url}${url.includes('?') ? '&' : '?'}lang=${lang}`);
        assert.equal(res?.status(), 200, `${url} (${lang})`);
        w.problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
        await screenshotIfAsked(page, path.join(SHOTS, `${name}-${lang}-${label}.png`), { fullPage: true });
      } finally {
        await context.close();
      }
    }
  }
}

/** A person holds `date` at BOOKED.start on the site; lands on the pay page signed in. Returns the hold's token. */
async function holdAndSignIn(w: World, page: Page, lawyerId: string, date: string, email: string): Promise<string> {
  // The week strip shows one day's times: open the day of the booking (the strip's own link shape).
  await page.goto(`${w.site}/lawyers/${lawyerId}/book?week=${date}&day=${date}`);
  await page.locator(`button[name="slot"][value="${date}|${BOOKED.start}|${BOOKED.end}"]`).click();
  await page.waitForURL('**/confirm/*');
  const token = new URL(page.url()).pathname.split('/').pop()!;
  await signInByCode(w, page, email);
  await continueToPay(page);
  return token;
}

/** The lawyer cancels her consultation with the person from /lawyer/consultations. */
async function cancelFromPortal(w: World, page: Page, personEmail: string, reason: string): Promise<string> {
  await page.goto(`${w.site}/lawyer/consultations`);
  await page.getByRole('link', { name: /Details of the consultation on/ }).first().click();
  await page.waitForURL(/\/lawyer\/consultations\/[0-9a-f-]{36}$/);
  const consultationId = new URL(page.url()).pathname.split('/').pop()!;
  assert.match(await page.locator('main').innerText(), new RegExp(personEmail.replace(/\./g, '\\.')));
  await page.getByLabel('Reason (sent to the person)').fill(reason);
  await page.getByRole('button', { name: 'Cancel the consultation and refund' }).click();
  await page.waitForURL(/done=/);
  return consultationId;
}

function journey(target: DatabaseTarget, photograph: boolean): void {
  describe(`a lawyer's journey, from /join to a refunded cancellation, in Chromium (${target.name})`, { skip: unavailable, timeout: 540_000 }, () => {
    let db: TestDatabase;
    let w: World;
    before(async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      db = await target.create();
      await db.database.close();
      w = await startWorld(db);
    });
    after(() => stopWorld(w, db));

    it('apply → verified → hours, offer, listed → exact API times → booked and paid → in her list and feed → cancelled: refunded, emailed, free again', async () => {
      const { server, site } = w;
      const dbx = server.database.db;
      const email = `amina-${target.name}@despacho.example`;
      const person = `maria-${target.name}@example.com`;
      const [dayA, dayOff, dayB] = [madridDate(Date.now(), 2), madridDate(Date.now(), 3), madridDate(Date.now(), 4)];
      const shoot = async (page: Page, name: string) => {
        if (!photograph) return;
        const here = new URL(page.url());
        await survey(w, await page.context().cookies(), here.pathname + here.search, name);
      };

      // 1. She applies at /join, after signing in by emailed code.
      const lawyerCtx = await w.browser.newContext({ viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
      const her = await lawyerCtx.newPage();
      await her.goto(`${site}/join`);
      await her.getByRole('link', { name: 'Sign in to apply' }).click();
      await her.waitForURL('**/sign-in?*');
      await signInByCode(w, her, email);
      await her.waitForURL(`${site}/join`);
      await shoot(her, 'join-form');
      await her.getByLabel(/Full name \(as in the census\)/).fill('Amina Benali Ruiz');
      await her.getByLabel(/Colegio de la abogacía/).selectOption('madrid');
      await her.getByLabel(/Membership number/).fill('12.345');
      await her.getByLabel(/City where you practise/).selectOption('madrid');
      await her.locator('input[name="languages"][value="es"]').check();
      await her.locator('input[name="languages"][value="ar"]').check();
      await her.locator('input[name="practice_areas"]').first().check();
      await her.getByLabel(/Fee for one consultation/).fill('65');
      await her.getByLabel('By phone').check();
      await her.getByRole('button', { name: 'Send my application' }).click();
      await her.waitForURL(`${site}/join`);
      assert.match(await her.locator('main').innerText(), /Amina Benali Ruiz[\s\S]*12\.345/);
      const lawyer = await dbx.selectFrom('lawyers').innerJoin('users', 'users.id', 'lawyers.user_id').select(['lawyers.id', 'lawyers.status', 'lawyers.listed']).where('users.email', '=', email).executeTakeFirstOrThrow();
      assert.equal(lawyer.status, 'applied');
      assert.equal(Number(lawyer.listed), 0);
      await shoot(her, 'join-pending');
      await her.goto(`${site}/lawyer`);
      assert.match(await her.locator('main').innerText(), /Application received: waiting for verification/);
      await shoot(her, 'portal-overview-applied');

      // 2. An operator — a passkey on record, proved minutes ago — verifies her from the queue, with a note.
      const op = await server.app.services.accounts.ensureUser(`operadora-${target.name}@consulta.example`);
      await makeOperator(server.database, op.id);
      await givePasskey(server.database, op.id, new Date().toISOString());
      const opSession = await server.app.services.sessions.create(op.id, { ip: '127.0.0.1', passkey: true });
      const opCtx = await w.browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
      await addSessionCookie(opCtx, site, opSession.token);
      const console_ = await opCtx.newPage();
      await console_.goto(`${site}/operator/applications`);
      await console_.getByRole('link', { name: /Amina Benali Ruiz/ }).click();
      await console_.waitForURL(`**/operator/applications/${lawyer.id}`);
      await console_.getByLabel('Note of what you checked').fill('Censo: Amina Benali Ruiz, ICAM 12.345, ejerciente.');
      await console_.getByLabel('The Censo General de Letrados').check();
      await console_.getByRole('button', { name: 'Verify for 12 months' }).click();
      await console_.waitForURL(/\/operator\/applications\?/);
      assert.match(await console_.locator('main').innerText(), /Verified\. She is listed once her profile is complete\./);
      await opCtx.close();
      const verification = await dbx.selectFrom('lawyer_verifications').selectAll().where('lawyer_id', '=', lawyer.id).executeTakeFirstOrThrow();
      assert.equal(verification.operator_user_id, op.id);
      assert.match(verification.note ?? '', /ICAM 12\.345/);

      // Verified but no weekly hours: not listed, and the overview says what is missing.
      await her.goto(`${site}/lawyer`);
      let overview = await her.locator('main').innerText();
      assert.match(overview, /Verified until/);
      assert.match(overview, /Not listed: people cannot find or book you yet\./);
      assert.match(overview, /Your weekly hours\./);
      await shoot(her, 'portal-overview-verified');
      assert.equal((await fetch(`${site}/api/v1/lawyers/${lawyer.id}/availability`, { headers: { authorization: `Bearer ${w.apiKey}` } })).status, 404, 'unlisted reads as unknown');

      // 3. Her profile (fee, a practice area), her consultation (45 minutes, by phone), her calendar.
      await her.goto(`${site}/lawyer/profile`);
      await her.getByLabel(/Fee for one consultation/).fill('80');
      assert.ok(await her.locator('input[name="practice_areas"]:checked').count() >= 1);
      await her.getByRole('button', { name: 'Save', exact: true }).click();
      await her.waitForURL(/\/lawyer\/profile\?saved=1$/);
      await shoot(her, 'portal-profile');
      await her.goto(`${site}/lawyer/consultation`);
      await her.getByLabel('Length of a consultation').selectOption('45');
      await her.getByLabel('By phone').check();
      await her.getByRole('button', { name: 'Save', exact: true }).click();
      await her.waitForURL(/\/lawyer\/consultation\?saved=1$/);
      await shoot(her, 'portal-consultation');
      await her.goto(`${site}/lawyer/calendar`);
      for (let day = 1; day <= 7; day++) {
        await her.locator(`#f-w${day}_0_start`).fill('09:00');
        await her.locator(`#f-w${day}_0_end`).fill('13:00');
      }
      await her.getByLabel('Free time between consultations').selectOption('30');
      await her.getByRole('button', { name: 'Save', exact: true }).click();
      await her.waitForURL(/\/lawyer\/calendar\?saved=1$/);
      await her.getByLabel('Date', { exact: true }).fill(dayOff);
      await her.getByLabel('Closed all day').check();
      await her.getByRole('button', { name: 'Save this date' }).click();
      await her.waitForURL(/saved=date/);
      await shoot(her, 'portal-calendar');
      await her.goto(`${site}/lawyer`);
      overview = await her.locator('main').innerText();
      assert.match(overview, /Listed: people find you in search and can book a consultation\./);
      await shoot(her, 'portal-overview-listed');

      // 4. The API shows exactly the times her hours, length and buffer imply; none on her day off.
      for (const date of [dayA, dayB]) {
        const a = await eventually(`times on ${date}`, async () => {
          const got = await availability(w, lawyer.id, date);
          return got.available.length > 0 && got;
        });
        assert.deepEqual(a.available, EXPECTED, date);
        assert.deepEqual(a.all.map((s) => `${s.start_time}-${s.end_time}`), EXPECTED, `${date}: nothing else listed`);
        assert.equal(a.body.consultation_fee_cents, 8000);
      }
      assert.deepEqual((await availability(w, lawyer.id, dayOff)).all, [], 'nothing on her day off');

      // 5. A person books 10:15 on dayA and pays on the site (demo provider).
      const personCtx = await w.browser.newContext({ viewport: PHONE, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
      const them = await personCtx.newPage();
      const holdToken = await holdAndSignIn(w, them, lawyer.id, dayA, person);
      await them.fill('#f-number', CARD.number);
      await them.fill('#f-expiry', CARD.expiry);
      await them.fill('#f-cvc', CARD.cvc);
      await them.fill('#f-name', CARD.name);
      await them.locator('.pay-button').click();
      await them.waitForURL(`**/confirm/${holdToken}`);
      assert.match(await them.locator('h1').innerText(), /booked/i);
      const consultation = await dbx.selectFrom('consultations').selectAll().where('lawyer_id', '=', lawyer.id).executeTakeFirstOrThrow();
      assert.equal(consultation.slot_date, dayA);
      assert.equal(consultation.status, 'confirmed');
      assert.deepEqual((await availability(w, lawyer.id, dayA)).available, EXPECTED.filter((t) => !t.startsWith(BOOKED.start)), 'the booked time is taken');
      const receipt = await eventually('the receipt with its invitation', async () => {
        for (const m of w.smtp.messages.filter((x) => x.to.includes(person))) {
          const parsed = await simpleParser(m.raw);
          const ics = parsed.attachments.find((x) => x.contentType === 'text/calendar')?.content.toString('utf8');
          if (ics && icsProp(ics, 'METHOD') === 'PUBLISH') return ics;
        }
        return undefined;
      });
      const uid = icsProp(receipt, 'UID')!;
      assert.ok(uid.startsWith(`${consultation.booking_intent_id}@`), uid);
      const receiptSequence = Number(icsProp(receipt, 'SEQUENCE') ?? '0');

      // 6. In her consultations, and in her subscription feed with the same UID.
      await her.goto(`${site}/lawyer/consultations`);
      assert.match(await her.locator('main').innerText(), new RegExp(person.replace(/\./g, '\\.')));
      await shoot(her, 'portal-consultations');
      await her.getByRole('button', { name: 'Make a calendar address' }).click();
      const feedUrl = await her.locator('#feed-url').inputValue();
      if (photograph) {
        // The address is shown once, in the answer to the POST: checked here, as it is.
        w.problems.push(...(await pageProblems(her, 'feed address en desktop')));
        await screenshotIfAsked(her, path.join(SHOTS, 'portal-consultations-feed-en-desktop.png'), { fullPage: true });
      }
      assert.ok(feedUrl.startsWith(`${site}/lawyer/consultations/feed/`), feedUrl);
      const feed = await fetch(feedUrl);
      assert.equal(feed.status, 200);
      assert.match(feed.headers.get('content-type') ?? '', /^text\/calendar/);
      const feedText = (await feed.text()).replace(/\r?\n[ \t]/g, '');
      assert.ok(feedText.includes(`UID:${uid}`), 'her feed carries the invitation\'s UID');
      assert.match(feedText, /STATUS:CONFIRMED/);

      // 7. She cancels with a reason.
      await her.goto(`${site}/lawyer/consultations/${consultation.id}`);
      await shoot(her, 'portal-consultation-detail');
      const cancelled = await cancelFromPortal(w, her, person, 'Tengo un juicio esa mañana; lo siento.');
      assert.equal(cancelled, consultation.id);
      assert.match(await her.locator('main').innerText(), /Cancelled\. The person has been emailed and refunded\./);
      await shoot(her, 'portal-consultation-cancelled');

      // 8. Refunded (the demo provider's ledger: the refund row), emailed, free again.
      const refund = await dbx.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultation.id).executeTakeFirstOrThrow();
      assert.equal(refund.status, 'succeeded');
      assert.equal(refund.provider_ref, `demo_refund_${refund.id}`);
      const row = await dbx.selectFrom('consultations').select(['status', 'status_reason', 'ics_sequence']).where('id', '=', consultation.id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'cancelled_by_lawyer');
      assert.equal(row.status_reason, 'Tengo un juicio esa mañana; lo siento.');
      const cancellation = await eventually('the cancellation email', async () => {
        for (const m of w.smtp.messages.filter((x) => x.to.includes(person))) {
          const parsed = await simpleParser(m.raw);
          const ics = parsed.attachments.find((x) => x.contentType === 'text/calendar')?.content.toString('utf8');
          if (ics && icsProp(ics, 'METHOD') === 'CANCEL') return { ics, text: parsed.text ?? '' };
        }
        return undefined;
      });
      assert.equal(icsProp(cancellation.ics, 'UID'), uid);
      assert.equal(icsProp(cancellation.ics, 'STATUS'), 'CANCELLED');
      assert.ok(Number(icsProp(cancellation.ics, 'SEQUENCE')) > receiptSequence, 'a higher SEQUENCE');
      assert.match(cancellation.text, /Tengo un juicio esa mañana/);
      assert.deepEqual((await availability(w, lawyer.id, dayA)).available, EXPECTED, 'the time is free again');
      const struck = (await (await fetch(feedUrl)).text()).replace(/\r?\n[ \t]/g, '');
      assert.ok(struck.includes(`UID:${uid}`) && /STATUS:CANCELLED/.test(struck), 'the feed strikes it');

      await personCtx.close();
      await lawyerCtx.close();
      assert.deepEqual(w.problems, []);
    });
  });
}

function stripeJourney(target: DatabaseTarget): void {
  describe(`the same booking paid and refunded through Stripe (stand-in), in Chromium (${target.name})`, { skip: unavailable, timeout: 180_000 }, () => {
    let db: TestDatabase;
    let w: World;
    let standIn: StripeStandIn;
    before(async () => {
      db = await target.create();
      await db.database.close();
      standIn = await StripeStandIn.start({ secretKey: STRIPE_SECRET_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET, now: () => Date.now() });
      w = await startWorld(db, { paymentProvider: 'stripe', stripeSecretKey: STRIPE_SECRET_KEY, stripeWebhookSecret: STRIPE_WEBHOOK_SECRET, stripeApiBase: standIn.url });
    });
    after(async () => {
      await stopWorld(w, db);
      await standIn?.close();
    });

    it('the person pays through Checkout; she cancels; exactly one refund reaches Stripe and the time is free again', async () => {
      const { server, site } = w;
      const dbx = server.database.db;
      const person = `ana-${target.name}@example.com`;
      const day = madridDate(Date.now(), 2);
      const weekly = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '13:00:00', slot_minutes: 60 as const }));
      const [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', weekly_hours: weekly, consultation_minutes: 45, consultation_fee_cents: 8000 })], new Date())) as [string];
      const user = await server.app.services.accounts.ensureUser(`lucia-${target.name}@despacho.example`);
      await dbx.updateTable('lawyers').set({ user_id: user.id, buffer_minutes: 30 }).where('id', '=', lawyerId).execute();
      server.app.services.directoryCache.invalidate();
      const before = await eventually('her times', async () => {
        const got = await availability(w, lawyerId, day);
        return got.available.length > 0 && got;
      });
      assert.deepEqual(before.available, EXPECTED);

      const personCtx = await w.browser.newContext({ viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
      const them = await personCtx.newPage();
      const holdToken = await holdAndSignIn(w, them, lawyerId, day, person);
      // The site answers the POST with a redirect to Checkout, where the test plays the person
      // paying (the stand-in's own address is not https://checkout.stripe.com, which is all the
      // CSP's form-action lets the browser follow).
      await them.getByRole('button', { name: /Continue to secure payment/ }).click();
      const intent = await dbx.selectFrom('booking_intents').select('id').where('lawyer_id', '=', lawyerId).executeTakeFirstOrThrow();
      const attempt = await eventually('a Checkout session', async () => (await attemptsOf(server.database, intent.id)).find((a) => a.checkout_ref));
      assert.ok(standIn.sessions.get(attempt.checkout_ref!)?.url);
      const paid = standIn.completeSession(attempt.checkout_ref!, CARD.number);
      assert.ok(paid.ok);
      const hook = await fetch(`${site}/payments/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': paid.event.header }, body: paid.event.body });
      assert.equal(hook.status, 200);
      await them.goto(`${site}/confirm/${holdToken}?paid=1`);
      await eventually('the booked page', async () => {
        await them.reload();
        return /booked/i.test(await them.locator('h1').innerText());
      });
      const consultation = await dbx.selectFrom('consultations').select(['id', 'status']).where('lawyer_id', '=', lawyerId).executeTakeFirstOrThrow();
      assert.equal(consultation.status, 'confirmed');

      const lawyerCtx = await w.browser.newContext({ viewport: PHONE, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
      const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      await addSessionCookie(lawyerCtx, site, token);
      const her = await lawyerCtx.newPage();
      assert.equal(await cancelFromPortal(w, her, person, 'Un imprevisto familiar.'), consultation.id);
      assert.match(await her.locator('main').innerText(), /Cancelled\. The person has been emailed and refunded\./);

      const calls = standIn.callsTo('POST', /^\/v1\/refunds$/);
      assert.equal(calls.length, 1, 'one refund request reached Stripe');
      const refund = await dbx.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultation.id).executeTakeFirstOrThrow();
      assert.equal(refund.status, 'succeeded');
      assert.equal(calls[0]!.idempotencyKey, refund.id);
      assert.equal(standIn.refunds.length, 1);
      assert.equal(standIn.refunds[0]!.amount, 8000);
      assert.equal(refund.provider_ref, standIn.refunds[0]!.id);
      assert.deepEqual((await availability(w, lawyerId, day)).available, EXPECTED, 'free again');
      await personCtx.close();
      await lawyerCtx.close();
    });
  });
}

browserDatabaseTarget('postgres').forEach((target, i) => {
  journey(target, i === 0);
  stripeJourney(target);
});
