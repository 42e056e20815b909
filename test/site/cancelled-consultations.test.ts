/**
 * A cancelled consultation on the person's side (issue 25 item 9), over the real app and database
 * (both): a future consultation cancelled by the person or by the lawyer is listed under
 * "Cancelled", not "Past"; it has no "What happens next" block and no Add to calendar links; and
 * its `.ics` download is the cancellation — METHOD:CANCEL, STATUS:CANCELLED, a SEQUENCE above the
 * receipt's — of the same UID the receipt's invitation used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';

const THU = '2026-11-26';

/** The lines of an `.ics` text, unfolded. */
function icsLines(ics: string): string[] {
  return ics.replace(/\r\n[ \t]/g, '').split('\r\n');
}
const field = (ics: string, name: string) => icsLines(ics).find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1);

/** The HTML of a page's part from the `<h2>` named `heading` to the next `<h2>` ('' when there is none). */
function section(html: string, heading: string): string {
  const start = html.indexOf(`<h2>${heading}</h2>`);
  if (start < 0) return '';
  const end = html.indexOf('<h2', start + 4);
  return html.slice(start, end < 0 ? undefined : end);
}

for (const target of databaseTargets()) {
  describe(`a cancelled consultation on My consultations (${target.name})`, () => {
    let ctx: TestContext;
    let maria: SignedIn;
    let lawyerId: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lorena Serrano Aguilar' })])) as [string];
      maria = await signedIn(ctx, `maria-cancelled-${target.name}@example.com`);
    });
    after(async () => ctx?.close());

    async function booked(hour: string) {
      const h = await hold(ctx, lawyerId, THU, hour);
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, maria.userId, GOOD_CARD)).kind, 'confirmed');
      return (await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow()).id;
    }
    async function receiptIcs(id: string): Promise<string> {
      const c = await ctx.database.db.selectFrom('consultations').select('booking_intent_id').where('id', '=', id).executeTakeFirstOrThrow();
      const mails = await ctx.database.db.selectFrom('mail_outbox').select(['kind', 'attachments', 'text']).where('kind', '=', 'consultation_receipt').execute();
      const mine = mails.find((m) => m.text.includes(c.booking_intent_id.slice(0, 8).toUpperCase()) || m.attachments.includes(c.booking_intent_id));
      assert.ok(mine, 'the receipt was queued');
      const attachment = (JSON.parse(mine.attachments) as Array<{ filename: string; content: string }>).find((a) => a.filename.endsWith('.ics'));
      assert.ok(attachment, 'the receipt has an invitation');
      return attachment.content;
    }

    it('after paying, the tab title says it is booked, as the heading does (issue 25 item 15)', async () => {
      const h = await hold(ctx, lawyerId, THU, '11');
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, maria.userId, GOOD_CARD)).kind, 'confirmed');
      const page = await maria.client.get(`/confirm/${h.token}`);
      assert.match(page.body, /<title>Your consultation is booked · Consulta<\/title>/);
      assert.match(page.body, /<h1>Your consultation is booked<\/h1>/);
    });

    for (const by of ['person', 'lawyer'] as const) {
      it(`cancelled by the ${by}: listed under Cancelled with no next steps, and its .ics withdraws the receipt's event`, async () => {
        const id = await booked(by === 'person' ? '10' : '12');
        const receipt = await receiptIcs(id);
        const before = await maria.client.get(`/consultations/${id}.ics`);
        assert.equal(field(before.body, 'METHOD'), 'PUBLISH');
        assert.equal(field(before.body, 'UID'), field(receipt, 'UID'), 'the download is the receipt\'s invitation');

        if (by === 'person') {
          await maria.client.get(`/consultations/${id}/cancel`);
          const res = await maria.client.post(`/consultations/${id}/cancel`, { refund: '1' });
          assert.equal(res.statusCode, 303);
        } else {
          assert.equal((await ctx.app.services.lawyerCancellation.cancel(lawyerId, id, 'Juicio')).outcome, 'cancelled');
        }

        const ics = await maria.client.get(`/consultations/${id}.ics`);
        assert.equal(ics.statusCode, 200);
        assert.match(String(ics.headers['content-type']), /^text\/calendar/);
        assert.equal(field(ics.body, 'METHOD'), 'CANCEL');
        assert.equal(field(ics.body, 'STATUS'), 'CANCELLED');
        assert.equal(field(ics.body, 'UID'), field(receipt, 'UID'), 'the same UID as the receipt');
        assert.ok(Number(field(ics.body, 'SEQUENCE')) > Number(field(receipt, 'SEQUENCE')), `SEQUENCE ${field(ics.body, 'SEQUENCE')} above the receipt's ${field(receipt, 'SEQUENCE')}`);
        // The cancellation email's file and the download agree on SEQUENCE (one cancellation, one number).
        const mails = await ctx.database.db.selectFrom('mail_outbox').select(['attachments']).where('recipient', '=', maria.email).execute();
        const cancels = mails.flatMap((m) => JSON.parse(m.attachments) as Array<{ content: string }>).map((a) => a.content).filter((c) => /METHOD:CANCEL/.test(c) && c.includes(field(receipt, 'UID')!));
        assert.equal(cancels.length, 1, 'one cancellation email with a calendar file');
        assert.equal(field(ics.body, 'SEQUENCE'), field(cancels[0]!, 'SEQUENCE'));

        const list = await maria.client.get('/consultations');
        const cancelledHtml = section(list.body, 'Cancelled');
        const cancelled = pageText(cancelledHtml);
        assert.ok(cancelledHtml.includes(`href="/consultations/${id}"`), 'listed under Cancelled');
        assert.ok(!section(list.body, 'Past').includes(`href="/consultations/${id}"`), 'not under Past');
        assert.doesNotMatch(cancelled, /What happens next/);
        assert.doesNotMatch(cancelledHtml, /class="calendar-links"/);
        assert.ok(cancelledHtml.includes(`href="/consultations/${id}.ics"`), 'the file that removes it is offered');
        assert.match(cancelled, /Remove it from your calendar/);

        const one = pageText((await maria.client.get(`/consultations/${id}`)).body);
        assert.doesNotMatch(one, /What happens next|Add to calendar/);
      });
    }
  });
}
