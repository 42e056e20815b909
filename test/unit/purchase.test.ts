/** The rules of what is bought (src/domain/booking/purchase.ts): choices, phone numbers, the reference, calendar links, the video link's 15 minutes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bookingReference, calendarLinks, effectiveFormat, mapLink, needsFormatChoice, nextStep, NOTE_MAX, toE164, validateChoices } from '../../src/domain/booking/purchase.ts';

const ALL = { consultation_minutes: 60, video_url: 'https://meet.example.com/x', offers_phone: 1, office_address: 'Calle Mayor 1, Madrid' };
const PHONE_ONLY = { consultation_minutes: 30, video_url: null, offers_phone: 1, office_address: null };

describe('what is bought', () => {
  it('reads phone numbers with libphonenumber-js (Spanish without a country code) and stores E.164', () => {
    assert.equal(toE164('612 345 678'), '+34612345678');
    assert.equal(toE164('0034 612-345-678'), '+34612345678');
    assert.equal(toE164('+212 612 345 678'), '+212612345678');
    assert.equal(toE164('+44 7911 123456'), '+447911123456');
    for (const bad of ['123', '', 'call me', '+34 12', '6'.repeat(45)]) assert.equal(toE164(bad), null, bad);
  });

  it('chooses the only format for the person; with several, one of them must be chosen', () => {
    assert.deepEqual(validateChoices(PHONE_ONLY, { phone: '612345678' }), { ok: true, choices: { format: 'phone', note: null, phone_e164: '+34612345678' } });
    const none = validateChoices(ALL, {});
    assert.equal(none.ok, false);
    assert.equal(!none.ok && none.errors.format, 'format_required');
    const bogus = validateChoices({ ...ALL, office_address: null }, { format: 'in_person' });
    assert.equal(!bogus.ok && bogus.errors.format, 'format_not_offered');
    const video = validateChoices(ALL, { format: 'video', phone: 'not a number' });
    assert.deepEqual(video, { ok: true, choices: { format: 'video', note: null, phone_e164: null } }, 'a number only matters for a phone call');
    assert.equal(effectiveFormat(['phone'], null), 'phone');
    assert.equal(effectiveFormat(['video', 'phone'], null), null);
    assert.equal(needsFormatChoice(['video', 'phone'], null), true);
    assert.equal(needsFormatChoice(['video', 'phone'], 'video'), false);
    assert.equal(needsFormatChoice(['phone'], null), false);
  });

  it('needs a valid number for a phone call, and a note of at most 1,000 characters', () => {
    const missing = validateChoices(ALL, { format: 'phone', phone: '  ' });
    assert.equal(!missing.ok && missing.errors.phone, 'phone_required');
    const bad = validateChoices(ALL, { format: 'phone', phone: '123' });
    assert.equal(!bad.ok && bad.errors.phone, 'phone_invalid');
    const long = validateChoices(PHONE_ONLY, { phone: '612345678', note: 'é'.repeat(NOTE_MAX + 1) });
    assert.equal(!long.ok && long.errors.note, 'note_too_long');
    const exact = validateChoices(PHONE_ONLY, { phone: '612345678', note: `  ${'ش'.repeat(NOTE_MAX)}\r\n ` });
    assert.equal(exact.ok && [...exact.choices.note!].length, NOTE_MAX);
    const cleaned = validateChoices(PHONE_ONLY, { phone: '612345678', note: 'Hola\u202E\u200B\r\nadiós\u0007' });
    assert.equal(cleaned.ok && cleaned.choices.note, 'Hola\nadiós');
  });

  it('derives the booking reference from the consultation id', () => {
    assert.equal(bookingReference('3f2a9c1b-7d4e-4f60-9a1b-2c3d4e5f6a7b'), '3F2A9C1B');
  });

  it('builds Google and Outlook links in UTC with title, details and location', () => {
    const startMs = Date.parse('2026-11-24T10:00:00Z');
    const links = calendarLinks({ title: 'Consultation with Nadia', startMs, endMs: startMs + 3_600_000, details: 'Your booking: https://x/confirm/t', location: 'Calle Mayor 1, Madrid' });
    const g = new URL(links.google);
    assert.equal(g.origin + g.pathname, 'https://calendar.google.com/calendar/render');
    assert.equal(g.searchParams.get('action'), 'TEMPLATE');
    assert.equal(g.searchParams.get('dates'), '20261124T100000Z/20261124T110000Z');
    assert.equal(g.searchParams.get('text'), 'Consultation with Nadia');
    assert.equal(g.searchParams.get('location'), 'Calle Mayor 1, Madrid');
    const o = new URL(links.outlook);
    assert.equal(o.origin + o.pathname, 'https://outlook.live.com/calendar/0/deeplink/compose');
    assert.equal(o.searchParams.get('startdt'), '2026-11-24T10:00:00Z');
    assert.equal(o.searchParams.get('enddt'), '2026-11-24T11:00:00Z');
    assert.equal(o.searchParams.get('subject'), 'Consultation with Nadia');
    assert.equal(o.searchParams.get('body'), 'Your booking: https://x/confirm/t');
  });

  it('shows the video link from 15 minutes before the start; the office with a map link; the number to call', () => {
    const start = Date.parse('2026-11-24T10:00:00Z');
    const early = nextStep('video', ALL, null, start, start - 16 * 60_000);
    assert.deepEqual(early, { kind: 'video', url: null, showsFromMs: start - 15 * 60_000 });
    assert.equal(nextStep('video', ALL, null, start, start - 15 * 60_000).kind === 'video' && (nextStep('video', ALL, null, start, start - 15 * 60_000) as { url: string }).url, ALL.video_url);
    assert.deepEqual(nextStep('in_person', ALL, null, start, 0), { kind: 'in_person', address: 'Calle Mayor 1, Madrid', mapUrl: 'https://www.openstreetmap.org/search?query=Calle%20Mayor%201%2C%20Madrid' });
    assert.equal(mapLink('a&b'), 'https://www.openstreetmap.org/search?query=a%26b');
    assert.deepEqual(nextStep('phone', ALL, '+34612345678', start, 0), { kind: 'phone', phone: '+34612345678' });
    assert.deepEqual(nextStep(null, ALL, null, start, 0), { kind: 'unknown' });
  });
});
