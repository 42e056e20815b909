/**
 * Small things a newcomer met (issue 25 item 15), each as its function answers it: initials from
 * the first surname ("LA" for Lorena Serrano Aguilar), "1 día" in the portal's notice select
 * ("1 días"), the Arabic lawyer-cancellation email's zone label with the Arabic comma, and zone
 * names in French, Romanian and Ukrainian sentences without brackets inside brackets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LawyerConsultationRow } from '../../src/db/repositories/lawyer-consultations.repository.ts';
import { cancellationMail } from '../../src/domain/booking/lawyer-cancellation.service.ts';
import { initials } from '../../src/domain/directory/trust.service.ts';
import { messages } from '../../src/i18n/index.ts';
import { CHOOSER_ZONES, zoneName } from '../../src/site/booking/visitor-zone.ts';
import { noticeLabel } from '../../src/site/lawyer/calendar.page.tsx';

describe('newcomer details (issue 25 item 15)', () => {
  it('initials: the first given name and the first surname', () => {
    assert.equal(initials('Lorena Serrano Aguilar'), 'LS');
    assert.equal(initials('María José García López'), 'MG');
    assert.equal(initials('Nadia El Amrani'), 'NA');
    assert.equal(initials('Carmen de la Fuente Ruiz'), 'CF');
    assert.equal(initials('Ana Costa'), 'AC');
    assert.equal(initials('Olena'), 'O');
    assert.equal(initials('  '), '?');
  });

  it('the notice select says "1 día", "2 días"', () => {
    const es = { t: messages('es') };
    assert.equal(noticeLabel(es, 1440), '1 día');
    assert.equal(noticeLabel(es, 2880), '2 días');
    assert.equal(noticeLabel({ t: messages('en') }, 1440), '1 day');
  });

  it('the Arabic email of a lawyer\'s cancellation uses the Arabic comma in its zone label', () => {
    const row = {
      id: 'c1', booking_intent_id: '3f2a9c1b-0000-4000-8000-000000000001', lawyer_id: 'l1', lawyer_name: 'Lorena Serrano Aguilar',
      lawyer_timezone: 'Europe/Madrid', city_name: 'Madrid', consultation_fee_cents: 6000, platform_commission_percent: 12,
      slot_date: '2026-11-26', start_time: '10:00:00', end_time: '11:00:00', status: 'confirmed', status_reason: null,
      status_changed_at: null, ics_sequence: 0, created_at: '2026-11-20T10:00:00.000Z', confirmed_at: null, confirmation_token: 'tok',
      person_id: 'u1', person_email: 'amal@example.com', person_name: null, person_locale: 'ar', lawyer_email: null, consultation_locale: 'ar',
    } satisfies LawyerConsultationRow;
    const mail = cancellationMail({ row, reason: 'Juicio', now: new Date('2026-11-21T10:00:00Z'), money: 'refund', amountCents: 6000, siteUrl: 'https://consulta.test' });
    const when = mail.text.split('\n').find((l) => l.startsWith(messages('ar').mail.lawyerCancellation.when));
    assert.ok(when, mail.text);
    assert.match(when, /، UTC\+01:00/);
    assert.doesNotMatch(when, /, /, `no Latin comma in «${when}»`);
  });

  it('zone names in French, Romanian and Ukrainian sentences: no brackets inside brackets', () => {
    for (const locale of ['fr', 'ro', 'uk'] as const) {
      const book = messages(locale).bookingPath;
      for (const zone of CHOOSER_ZONES) {
        const name = zoneName(zone, locale);
        for (const sentence of [book.keptUntil('10:00', name), book.timesNote(null, name)]) {
          assert.doesNotMatch(sentence, /\([^)]*\(/, `${locale} ${zone}: ${sentence}`);
        }
      }
    }
  });
});
