/**
 * The .ics invitation, read back by ical.js (Mozilla's iCalendar parser, as calendar clients
 * use it): escaping of hostile text, 75-octet folding with CRLF, and UTC instants from the
 * lawyer's wall-clock time in Madrid and the Canary Islands, across the daylight-saving change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ICAL from 'ical.js';
import { buildIcs, escapeText, foldLine, type IcsEvent } from '../../src/domain/notify/ics.ts';

const BASE: IcsEvent = {
  uid: 'f3b1c0de-0000-4000-8000-000000000001@consulta.test',
  stamp: new Date('2026-11-23T08:00:00.000Z'),
  date: '2026-11-30',
  startTime: '10:00:00',
  endTime: '11:00:00',
  timezone: 'Europe/Madrid',
  summary: 'Consultation with Lucía Fernández Ruiz',
  location: 'Madrid',
  description: 'Immigration law consultation.',
  url: 'http://consulta.test/confirm/abc',
};

function parse(ics: string) {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const vevent = calendar.getFirstSubcomponent('vevent');
  assert.ok(vevent, 'a VEVENT');
  return { calendar, vevent, event: new ICAL.Event(vevent) };
}

const HOSTILE = [
  'Ana; María, "la jefa" \\ Ortega',
  'line one\nline two\r\nline three\rfour',
  'Emoji 👩🏽‍⚖️⚖️🇪🇸 and accents áéíóú ñ ü',
  'END:VEVENT\nBEGIN:VEVENT\nSUMMARY:injected',
  `${'Long, long; text '.repeat(20)}ñ${'€'.repeat(40)}`,
  'control\u0000chars\u0007here\u001b[31m',
];

describe('ics', () => {
  it('is a VCALENDAR with METHOD:PUBLISH and one VEVENT that ical.js reads back', () => {
    const ics = buildIcs(BASE);
    const { calendar, vevent, event } = parse(ics);
    assert.equal(calendar.getFirstPropertyValue('method'), 'PUBLISH');
    assert.equal(calendar.getFirstPropertyValue('version'), '2.0');
    assert.equal(calendar.getAllSubcomponents('vevent').length, 1);
    assert.equal(event.uid, BASE.uid);
    assert.equal(event.summary, BASE.summary);
    assert.equal(event.location, 'Madrid');
    assert.equal(event.description, BASE.description);
    assert.equal(vevent.getFirstPropertyValue('url'), BASE.url);
    assert.equal((vevent.getFirstPropertyValue('dtstamp') as ICAL.Time).toJSDate().toISOString(), '2026-11-23T08:00:00.000Z');
  });

  it('writes CRLF line ends only, and no line longer than 75 octets', () => {
    const ics = buildIcs({ ...BASE, summary: HOSTILE.join(' '), description: HOSTILE.join('\n') });
    assert.ok(ics.endsWith('\r\n'));
    assert.doesNotMatch(ics.replace(/\r\n/g, ''), /[\r\n]/, 'no bare CR or LF');
    for (const line of ics.split('\r\n')) assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `${Buffer.byteLength(line, 'utf8')} octets: ${line}`);
  });

  it('gives hostile text back exactly (control characters aside) and lets none of it add a property', () => {
    for (const text of HOSTILE) {
      const ics = buildIcs({ ...BASE, summary: text, location: text, description: text });
      const { calendar, event } = parse(ics);
      // eslint-disable-next-line no-control-regex
      const expected = text.replace(/\r\n|\r/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
      assert.equal(event.summary, expected);
      assert.equal(event.location, expected);
      assert.equal(event.description, expected);
      assert.equal(calendar.getAllSubcomponents('vevent').length, 1, 'still one event');
      assert.equal(ics.match(/^(BEGIN|END):VEVENT/gm)?.length, 2, 'no injected BEGIN/END line');
    }
  });

  it('escapes backslash, semicolon, comma and newlines', () => {
    assert.equal(escapeText('a\\b;c,d\ne'), 'a\\\\b\\;c\\,d\\ne');
  });

  it('folds on character boundaries: a 4-byte emoji is never cut', () => {
    const line = `SUMMARY:${'🇪🇸'.repeat(30)}`;
    const folded = foldLine(line);
    for (const part of folded.split('\r\n')) {
      assert.ok(Buffer.byteLength(part, 'utf8') <= 75);
      assert.doesNotMatch(part, /\uFFFD/);
      assert.equal(Buffer.from(part, 'utf8').toString('utf8'), part);
    }
    assert.equal(folded.replace(/\r\n /g, ''), line);
  });

  it('gives UTC start and end for Madrid in winter (UTC+1) and summer (UTC+2)', () => {
    const winter = parse(buildIcs(BASE)).event;
    assert.equal(winter.startDate.toJSDate().toISOString(), '2026-11-30T09:00:00.000Z');
    assert.equal(winter.endDate.toJSDate().toISOString(), '2026-11-30T10:00:00.000Z');
    assert.ok(winter.startDate.zone === ICAL.Timezone.utcTimezone, 'written in UTC');
    const summer = parse(buildIcs({ ...BASE, date: '2026-07-01', startTime: '09:30:00', endTime: '10:00:00' })).event;
    assert.equal(summer.startDate.toJSDate().toISOString(), '2026-07-01T07:30:00.000Z');
    assert.equal(summer.endDate.toJSDate().toISOString(), '2026-07-01T08:00:00.000Z');
  });

  it('gives UTC start and end for the Canary Islands (an hour behind Madrid)', () => {
    const canary = { ...BASE, timezone: 'Atlantic/Canary', location: 'Las Palmas de Gran Canaria' };
    const winter = parse(buildIcs(canary)).event;
    assert.equal(winter.startDate.toJSDate().toISOString(), '2026-11-30T10:00:00.000Z');
    assert.equal(winter.endDate.toJSDate().toISOString(), '2026-11-30T11:00:00.000Z');
    const summer = parse(buildIcs({ ...canary, date: '2026-07-01' })).event;
    assert.equal(summer.startDate.toJSDate().toISOString(), '2026-07-01T09:00:00.000Z');
  });

  it('uses the offset of the consultation day, not of the day it was booked, around the clock change', () => {
    // Sunday 29 March 2026: Madrid moves from UTC+1 to UTC+2 at 02:00 local.
    const before = parse(buildIcs({ ...BASE, date: '2026-03-28', startTime: '10:00:00', endTime: '11:00:00' })).event;
    const after = parse(buildIcs({ ...BASE, date: '2026-03-30', startTime: '10:00:00', endTime: '11:00:00' })).event;
    assert.equal(before.startDate.toJSDate().toISOString(), '2026-03-28T09:00:00.000Z');
    assert.equal(after.startDate.toJSDate().toISOString(), '2026-03-30T08:00:00.000Z');
  });
});
