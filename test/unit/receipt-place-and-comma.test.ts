/**
 * Two things read in the actual receipts of a 390 px walk (Arabic from Bogotá, Ukrainian from the
 * Canaries): the attached invitation's LOCATION was the lawyer's city ("Madrid") for a video call,
 * while the Add to calendar links in the same email carried the video link; and the Arabic
 * subject joined the day and the time with a Latin comma ("…، الخميس، 26 نوفمبر 2026, 18:30").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ICAL from 'ical.js';
import { consultationMails, type ConsultationMailFacts } from '../../src/domain/booking/consultation-mail.ts';
import type { ConsultationFormat } from '../../src/db/schema.ts';

function facts(format: ConsultationFormat | null, locale: string, bought = true): ConsultationMailFacts {
  return {
    intent: { id: '916b3e8e-c383-41fb-baeb-612d00434507', slot_date: '2026-12-10', start_time: '17:30:00', end_time: '18:30:00', confirmation_token: 'tok' },
    confirmedAt: new Date('2026-11-26T10:40:16Z'),
    person: { email: 'walker@example.com', locale, zone: 'America/Bogota' },
    lawyer: { name: 'Gabriel Villegas Gómez', timezone: 'Europe/Madrid', city: 'Madrid', consultation_fee_cents: 9000, platform_commission_percent: 14, contact_email: null },
    siteUrl: 'https://consulta.example',
    ...(bought
      ? {
          bought: {
            consultationId: '6770ca20-0000-4000-8000-000000000000',
            format,
            note: null,
            phone_e164: format === 'phone' ? '+34612345678' : null,
            offer: { id: 'l', consultation_minutes: 60, video_url: 'https://meet.example.com/consulta-1', offers_phone: 1, office_address: 'Calle Mayor 1, Madrid' },
          },
        }
      : {}),
  };
}

function location(f: ConsultationMailFacts): string | null {
  const [receipt] = consultationMails(f);
  const ics = String(receipt!.attachments![0]!.content);
  const event = new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!;
  const value = event.getFirstPropertyValue('location');
  return value === null ? null : String(value);
}

describe('the receipt: where the consultation is, and the language\'s comma', () => {
  it('the invitation\'s LOCATION is the video link, the office, nothing for a phone call, the city when the format is unknown', () => {
    assert.equal(location(facts('video', 'ar')), 'https://meet.example.com/consulta-1');
    assert.equal(location(facts('in_person', 'uk')), 'Calle Mayor 1, Madrid');
    assert.equal(location(facts('phone', 'ro')), null);
    assert.equal(location(facts(null, 'es', false)), 'Madrid');
  });

  it('the Arabic subject joins the day and the time with the Arabic comma; Spanish keeps its own', () => {
    const [ar] = consultationMails(facts('video', 'ar'));
    assert.match(ar!.subject, /، 17:30$/);
    assert.doesNotMatch(ar!.subject, /, /);
    const [es] = consultationMails(facts('video', 'es'));
    assert.match(es!.subject, /, 17:30$/);
  });
});
