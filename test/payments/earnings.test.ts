/**
 * A lawyer's earnings (issue 18 item 7; docs/lawyers.md#earnings-and-payouts), on every database:
 * month totals from the payment ledger to the cent (quote()'s arithmetic, several months, fees
 * recorded and not, succeeded/pending/failed refunds, a free consultation, another lawyer's
 * money kept out), one payment made through the real demo flow, the page and the CSV over the
 * app (quoting, formula injection), and the object-level attacks: nothing reads a lawyer id from
 * the request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quote } from '../../src/domain/booking/quote.ts';
import { csvAmount, csvCell, earningLine, earningsCsv, monthTotals } from '../../src/domain/payments/earnings.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { T0 } from '../support/booking.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';
import { ledger, linkLawyer } from './earnings-support.ts';
import { GOOD_CARD, hold } from './support.ts';

const FEE = 7450;
const COMMISSION = 15;

describe('earnings arithmetic (pure)', () => {
  it('keeps the platform share of a refund in proportion, rounding half up, and never goes negative', () => {
    const share = quote({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION }).platformShareCents;
    assert.equal(share, 1118);
    const row = (paid: number | null, refunded: number | null, fee: number | null) => ({ consultation_id: 'c', lawyer_id: 'l', slot_date: '2026-11-02', start_time: '10:00:00', status: 'confirmed', paid_cents: paid, platform_fee_cents: fee, destination_account: null, refunded_cents: refunded });
    const l = { platform_commission_percent: COMMISSION };
    assert.deepEqual(
      [earningLine(row(FEE, null, share), l)].map((x) => [x.paidCents, x.refundedCents, x.platformShareCents, x.netCents]),
      [[7450, 0, 1118, 6332]],
    );
    // A full refund: nothing for anyone.
    const full = earningLine(row(FEE, FEE, share), l);
    assert.deepEqual([full.platformShareCents, full.netCents], [0, 0]);
    // A partial refund (not offered today, but the arithmetic holds): 1118 × 3725 / 7450 = 559.
    const half = earningLine(row(FEE, 3725, share), l);
    assert.deepEqual([half.platformShareCents, half.netCents], [559, 3725 - 559]);
    // 1 cent paid at 50 %: the share 1 × 50 / 100 = 0.5 rounds up to 1 — as quote() does.
    assert.equal(earningLine(row(1, null, null), { platform_commission_percent: 50 }).platformShareCents, quote({ consultation_fee_cents: 1, platform_commission_percent: 50 }).platformShareCents);
    // An old attempt without a recorded fee: quote() of the amount paid at her commission.
    assert.equal(earningLine(row(5001, null, null), l).platformShareCents, quote({ consultation_fee_cents: 5001, platform_commission_percent: COMMISSION }).platformShareCents);
    // A refund larger than the payment (corrupt data) is capped: never a negative net.
    assert.equal(earningLine(row(100, 999, 15), l).netCents, 0);
  });

  it('CSV cells cannot run as formulas and are quoted per RFC 4180', () => {
    assert.equal(csvCell('=HYPERLINK("http://evil.example","x")'), `"'=HYPERLINK(""http://evil.example"",""x"")"`);
    assert.equal(csvCell('+34 600'), `'+34 600`);
    assert.equal(csvCell('-2+3'), `'-2+3`);
    assert.equal(csvCell('@SUM(A1)'), `'@SUM(A1)`);
    assert.equal(csvCell('\tcmd'), `'\tcmd`);
    assert.equal(csvCell('\r=1'), `"'\r=1"`);
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell('Cancelada por ti'), 'Cancelada por ti');
    assert.equal(csvCell(12), '12');
    assert.deepEqual([csvAmount(0), csvAmount(5), csvAmount(7450), csvAmount(123456)], ['0.00', '0.05', '74.50', '1234.56']);
    const lines = [earningLine({ consultation_id: 'c1', lawyer_id: 'l', slot_date: '2026-11-02', start_time: '10:00:00', status: 'weird', paid_cents: FEE, platform_fee_cents: 1118, destination_account: null, refunded_cents: null }, { platform_commission_percent: COMMISSION })];
    const csv = earningsCsv(lines, { month: 'Month', date: 'Date', time: 'Time', consultation: 'Id', status: 'Status', paid: 'Paid', refunded: 'Refunded', platformShare: 'Share', net: 'Net', account: 'To' }, () => '=cmd|"/c calc"!A1', () => '@platform');
    assert.ok(csv.startsWith('\uFEFFMonth,Date,Time,Id,Status,Paid,Refunded,Share,Net,To\r\n'));
    assert.equal(csv.split('\r\n')[1], `2026-11,2026-11-02,10:00,c1,"'=cmd|""/c calc""!A1",74.50,0.00,11.18,63.32,'@platform`);
  });
});

for (const target of databaseTargets()) {
  describe(`earnings from the ledger (${target.name})`, () => {
    let ctx: TestContext;
    let lucia: string;
    let other: string;
    let her: SignedIn;
    let stranger: SignedIn;
    let otherLawyer: SignedIn;
    const share = quote({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION }).platformShareCents;

    before(async () => {
      ctx = await createTestContext(target);
      const every = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '14:00:00', slot_minutes: 60 as const }));
      [lucia, other] = (await insertLawyers(ctx.database, [
        lawyerRecord({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION, weekly_hours: every }),
        lawyerRecord({ name: 'Otro Abogado Pérez', consultation_fee_cents: 9999, platform_commission_percent: 20 }),
      ])) as [string, string];
      her = await signedIn(ctx, 'lucia@example.com');
      otherLawyer = await signedIn(ctx, 'otro@example.com');
      stranger = await signedIn(ctx, 'nobody@example.com');
      await linkLawyer(ctx.database, lucia, her.userId);
      await linkLawyer(ctx.database, other, otherLawyer.userId);
      const maria = stranger.userId;

      // November: one consultation paid through the real demo flow.
      ctx.clock.set(T0);
      const h = await hold(ctx, lucia, '2026-11-24', '10');
      const paid = await ctx.app.services.payments.payWithCard(h.token, maria, GOOD_CARD);
      assert.equal(paid.kind, 'confirmed');
      // October: one paid, one paid and refunded in full.
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-10-05', paid: FEE, fee: share });
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-10-31', hour: '13', paid: FEE, fee: share, refund: { amount: FEE, status: 'succeeded' }, status: 'cancelled_by_lawyer' });
      // September: an attempt from before 0032 (no fee recorded), a refund still pending, a failed
      // refund, and a free consultation.
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-09-01', paid: 5001, fee: null });
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-09-15', paid: 6000, fee: 900, refund: { amount: 6000, status: 'pending' }, status: 'cancelled_by_person' });
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-09-16', paid: 6000, fee: 900, refund: { amount: 6000, status: 'failed' } });
      await ledger(ctx.database, { lawyerId: lucia, userId: maria, date: '2026-09-30', paid: null });
      // Another lawyer's money, the same months.
      await ledger(ctx.database, { lawyerId: other, userId: maria, date: '2026-10-05', paid: 9999, fee: 2000 });
      await ledger(ctx.database, { lawyerId: other, userId: maria, date: '2026-11-25', paid: 9999, fee: 2000 });
    });
    after(async () => {
      await ctx.close();
    });

    it('sums each month to the cent: what people paid, refunds, the platform share and hers', async () => {
      const attempt = await ctx.database.db.selectFrom('payment_attempts').select(['platform_fee_cents', 'destination_account', 'amount_cents']).where('status', '=', 'captured').where('provider', '=', 'demo').orderBy('created_at').executeTakeFirstOrThrow();
      assert.equal(Number(attempt.platform_fee_cents), share, 'the share quote() gave is fixed on the attempt');
      assert.equal(attempt.destination_account, null, 'the demo provider makes platform charges');

      const lawyer = (await ctx.app.services.firmLawyers.lawyerOf(her.userId))!;
      const summary = await ctx.app.services.earnings.summary([lawyer]);
      const oldShare = quote({ consultation_fee_cents: 5001, platform_commission_percent: COMMISSION }).platformShareCents;
      assert.deepEqual(summary.months, [
        { month: '2026-11', consultations: 1, paidCents: FEE, refundedCents: 0, platformShareCents: share, netCents: FEE - share },
        { month: '2026-10', consultations: 2, paidCents: 2 * FEE, refundedCents: FEE, platformShareCents: share, netCents: FEE - share },
        { month: '2026-09', consultations: 4, paidCents: 5001 + 12000, refundedCents: 0, platformShareCents: oldShare + 1800, netCents: 5001 - oldShare + 12000 - 1800 },
      ]);
      assert.equal(oldShare, 750);
      assert.deepEqual(summary.total, {
        consultations: 7,
        paidCents: FEE * 3 + 17001,
        refundedCents: FEE,
        platformShareCents: share * 2 + 750 + 1800,
        netCents: (FEE - share) * 2 + (5001 - 750) + 12000 - 1800,
      });
      // Every month: paid − refunded = platform share + hers.
      for (const m of summary.months) assert.equal(m.paidCents - m.refundedCents, m.platformShareCents + m.netCents);
      const october = await ctx.app.services.earnings.lines([lawyer], '2026-10');
      assert.deepEqual(october.map((l) => [l.date, l.status, l.netCents]), [['2026-10-05', 'confirmed', FEE - share], ['2026-10-31', 'cancelled_by_lawyer', 0]]);
      assert.deepEqual(await ctx.app.services.earnings.lines([lawyer], '2026-13'), []);
    });

    it('shows her months on the page, one month in detail, in English and Spanish', async () => {
      const page = await her.client.get('/lawyer/earnings');
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['cache-control'], 'private, no-store');
      const text = pageText(page.body);
      assert.match(text, /Earnings and payouts/);
      assert.match(text, /November 2026 Consultations 1 People paid €74\.50 Refunded €0\.00 Platform’s share €11\.18 Yours €63\.32/);
      assert.match(text, /October 2026 Consultations 2 People paid €149\.00 Refunded €74\.50 Platform’s share €11\.18 Yours €63\.32/);
      assert.doesNotMatch(text, /99\.99/, 'another lawyer’s money never shows');
      assert.match(text, /demo payment provider: no money moves/);
      // In the portal, with this page marked in its navigation (the month page too).
      assert.match(page.body, /href="\/lawyer\/earnings" aria-current="page"/);
      assert.match(page.body, /href="\/lawyer\/consultations"/);
      const month = await her.client.get('/lawyer/earnings?month=2026-10');
      assert.equal(month.statusCode, 200);
      assert.match(pageText(month.body), /Consultations of October 2026/);
      assert.match(month.body, /href="\/lawyer\/earnings" aria-current="page"/);
      assert.match(pageText(month.body), /Cancelled by you/);
      const es = await her.client.get('/lawyer/earnings?lang=es');
      assert.match(pageText(es.body), /noviembre de 2026 Consultas 1 Pagado 74,50 € Devuelto 0,00 € Parte de la plataforma 11,18 € Para usted 63,32 €/);
      const bad = await her.client.get('/lawyer/earnings?month=2026-13&lang=en');
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /That month is not one we can show/);
    });

    it('downloads her CSV: all months or one, as an attachment, her rows only', async () => {
      const all = await her.client.get('/lawyer/earnings.csv?lang=en');
      assert.equal(all.statusCode, 200);
      assert.equal(all.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(all.headers['content-disposition'], 'attachment; filename="earnings-all.csv"');
      const rows = all.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
      assert.equal(rows[0], 'By month,Date,Time,Consultations,Status,People paid,Refunded,Platform’s share,Yours,Paid to');
      assert.equal(rows.length, 1 + 7);
      assert.match(rows.find((r) => r.startsWith('2026-10,2026-10-31'))!, /,Cancelled by you,74\.50,74\.50,0\.00,0\.00,Consulta \(paid out to you\)$/);
      assert.ok(!all.body.includes('99.99'));
      const oct = await her.client.get('/lawyer/earnings.csv?month=2026-10');
      assert.equal(oct.headers['content-disposition'], 'attachment; filename="earnings-2026-10.csv"');
      assert.equal(oct.body.trimEnd().split('\r\n').length, 3);
      const es = await her.client.get('/lawyer/earnings.csv?lang=es');
      assert.match(es.body, /^\uFEFFPor mes,Fecha,Hora,Consultas,Estado,Pagado,Devuelto,Parte de la plataforma,Para usted,Cobrado en\r\n/);
    });

    it('attacks: another lawyer’s id in the request changes nothing; a non-lawyer and a signed-out visitor see none', async () => {
      for (const url of [`/lawyer/earnings?lawyer_id=${other}`, `/lawyer/earnings?lawyer=${other}&month=2026-11`]) {
        const res = await her.client.get(url);
        assert.doesNotMatch(res.body, /99[.,]99/);
      }
      const csv = await her.client.get(`/lawyer/earnings.csv?lawyer_id=${other}`);
      assert.ok(!csv.body.includes('99.99'));
      // The other lawyer sees only hers.
      const theirs = pageText((await otherLawyer.client.get('/lawyer/earnings')).body);
      assert.match(theirs, /€99\.99/);
      assert.doesNotMatch(theirs, /€74\.50/);
      const nobody = await stranger.client.get('/lawyer/earnings');
      // The portal's one answer for someone who is not a lawyer (src/site/lawyer/guard.ts).
      assert.equal(nobody.statusCode, 403);
      assert.match(pageText(nobody.body), /This area is for lawyers on Consulta/);
      assert.equal((await stranger.client.get('/lawyer/earnings.csv')).statusCode, 403);
      const anon = await ctx.app.fastify.inject({ method: 'GET', url: '/lawyer/earnings.csv', headers: { accept: 'text/html' } });
      assert.equal(anon.statusCode, 303);
      assert.match(String(anon.headers.location), /^\/sign-in\?return_to=/);
    });

    it('with the demo provider, connecting is a labelled no-op: no account is stored', async () => {
      await her.client.get('/lawyer/earnings');
      const res = await her.client.post('/lawyer/earnings/connect', {});
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/lawyer/earnings');
      assert.equal((await ctx.database.db.selectFrom('lawyer_payout_accounts').select('lawyer_id').execute()).length, 0);
      // Without the CSRF token, nothing happens.
      const forged = await her.client.post('/lawyer/earnings/connect', { _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
    });

    it('sums the same with monthTotals over mixed lines as over each month', async () => {
      const lawyer = (await ctx.app.services.firmLawyers.lawyerOf(her.userId))!;
      const lines = await ctx.app.services.earnings.lines([lawyer]);
      const perMonth = await Promise.all(['2026-09', '2026-10', '2026-11'].map((m) => ctx.app.services.earnings.lines([lawyer], m)));
      assert.deepEqual(monthTotals(perMonth.flat()), monthTotals(lines));
    });
  });
}
