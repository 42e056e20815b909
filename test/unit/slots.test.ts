import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  availabilityValidThrough,
  cellsCovering,
  isBookable,
  isFree,
  nextAvailability,
  slotsOnDate,
  type DateException,
  type LawyerSchedule,
  type OccupiedInterval,
} from '../../src/domain/directory/slots.ts';
import { isQuarterHour } from '../../src/domain/lawyers/calendar-rules.ts';

// 2026-11-23 is a Monday (CET, UTC+1).
const schedule = (overrides: Partial<LawyerSchedule> = {}): LawyerSchedule => ({
  timezone: 'Europe/Madrid',
  lengthMinutes: 60,
  bufferMinutes: 0,
  minNoticeMinutes: null,
  horizonDays: 90,
  weekly: [
    { weekday: 1, start_time: '09:00:00', end_time: '11:30:00' },
    { weekday: 1, start_time: '16:00:00', end_time: '18:00:00' },
    { weekday: 3, start_time: '10:00:00', end_time: '12:00:00' },
  ],
  exceptions: new Map(),
  occupied: [],
  ...overrides,
});
const rules = (now: string, leadMinutes = 120) => ({ nowMs: Date.parse(now), minLeadTimeMs: leadMinutes * 60_000 });
const times = (s: LawyerSchedule, date: string) => slotsOnDate(s, date).map((x) => `${x.start_time}-${x.end_time}`);
const closed = (date: string): [string, DateException[]] => [date, [{ date, start_time: null, end_time: null }]];
const at = (iso: string) => Date.parse(iso);

describe('slot generation from the offer', () => {
  it('cuts each range from its start into consultations of her length, whole ones only, in time order', () => {
    assert.deepEqual(times(schedule(), '2026-11-23'), ['09:00:00-10:00:00', '10:00:00-11:00:00', '16:00:00-17:00:00', '17:00:00-18:00:00']);
    assert.equal(new Date(slotsOnDate(schedule(), '2026-11-23')[0]!.startsAtMs).toISOString(), '2026-11-23T08:00:00.000Z');
    assert.deepEqual(times(schedule({ lengthMinutes: 45 }), '2026-11-25'), ['10:00:00-10:45:00', '10:45:00-11:30:00']);
    assert.deepEqual(times(schedule({ lengthMinutes: 30 }), '2026-11-25'), ['10:00:00-10:30:00', '10:30:00-11:00:00', '11:00:00-11:30:00', '11:30:00-12:00:00']);
    assert.deepEqual(times(schedule({ lengthMinutes: 90 }), '2026-11-23'), ['09:00:00-10:30:00', '16:00:00-17:30:00']);
  });

  it('ignores the weekly rows\' slot_minutes: the length is the offer\'s', () => {
    const weekly = [{ weekday: 3, start_time: '10:00:00', end_time: '12:00:00', slot_minutes: 15 }];
    assert.deepEqual(times(schedule({ weekly, lengthMinutes: 60 }), '2026-11-25'), ['10:00:00-11:00:00', '11:00:00-12:00:00']);
  });

  it('steps by length + buffer within a range', () => {
    const s = schedule({ weekly: [{ weekday: 1, start_time: '09:00:00', end_time: '13:00:00' }], lengthMinutes: 45, bufferMinutes: 15 });
    assert.deepEqual(times(s, '2026-11-23'), ['09:00:00-09:45:00', '10:00:00-10:45:00', '11:00:00-11:45:00', '12:00:00-12:45:00']);
    const long = schedule({ weekly: [{ weekday: 1, start_time: '09:00:00', end_time: '13:00:00' }], lengthMinutes: 90, bufferMinutes: 30 });
    assert.deepEqual(times(long, '2026-11-23'), ['09:00:00-10:30:00', '11:00:00-12:30:00']);
  });

  it('offers nothing on days without hours', () => {
    assert.deepEqual(slotsOnDate(schedule(), '2026-11-24'), []);
  });

  it('closes a day, or replaces its hours with other ranges, by override', () => {
    assert.deepEqual(slotsOnDate(schedule({ exceptions: new Map([closed('2026-11-23')]) }), '2026-11-23'), []);
    const custom = schedule({
      lengthMinutes: 30,
      exceptions: new Map([
        ['2026-11-24', [
          { date: '2026-11-24', start_time: '17:00:00', end_time: '18:00:00' },
          { date: '2026-11-24', start_time: '12:00:00', end_time: '13:00:00' },
        ]],
      ]),
    });
    assert.deepEqual(slotsOnDate(custom, '2026-11-24').map((x) => x.start_time), ['12:00:00', '12:30:00', '17:00:00', '17:30:00']);
    // A closed marker wins over custom hours listed for the same date.
    const both = schedule({ exceptions: new Map([['2026-11-23', [{ date: '2026-11-23', start_time: '12:00:00', end_time: '13:00:00' }, { date: '2026-11-23', start_time: null, end_time: null }]]]) });
    assert.deepEqual(slotsOnDate(both, '2026-11-23'), []);
  });

  it('keeps wall-clock times across daylight-saving changes (Madrid)', () => {
    const weekly = [{ weekday: 7, start_time: '09:00:00', end_time: '11:00:00' }, { weekday: 6, start_time: '09:00:00', end_time: '10:00:00' }];
    const s = schedule({ weekly });
    // Saturday before the spring change: CET; the Sunday of the change (2027-03-28): CEST.
    assert.equal(new Date(slotsOnDate(s, '2027-03-27')[0]!.startsAtMs).toISOString(), '2027-03-27T08:00:00.000Z');
    const sunday = slotsOnDate(s, '2027-03-28');
    assert.deepEqual(sunday.map((x) => new Date(x.startsAtMs).toISOString()), ['2027-03-28T07:00:00.000Z', '2027-03-28T08:00:00.000Z']);
    assert.ok(sunday.every((x) => x.endsAtMs - x.startsAtMs === 3_600_000));
    // The autumn Sunday (2027-10-31) is back on CET.
    assert.equal(new Date(slotsOnDate(s, '2027-10-31')[0]!.startsAtMs).toISOString(), '2027-10-31T08:00:00.000Z');
  });

  it('skips wall-clock times the spring change jumps over, and lengths are real instants', () => {
    // Madrid jumps from 02:00 to 03:00 on 2027-03-28: 02:00 and 02:30 do not exist, and a
    // consultation may neither start nor end at a time that does not exist (01:30–02:00).
    const s = schedule({ weekly: [{ weekday: 7, start_time: '01:00:00', end_time: '04:00:00' }], lengthMinutes: 30 });
    const sunday = slotsOnDate(s, '2027-03-28');
    assert.deepEqual(sunday.map((x) => x.start_time), ['01:00:00', '03:00:00', '03:30:00']);
    assert.ok(sunday.every((x) => x.endsAtMs - x.startsAtMs === 30 * 60_000));
  });

  it('uses Atlantic/Canary time, DST included', () => {
    const s = schedule({ timezone: 'Atlantic/Canary', weekly: [{ weekday: 1, start_time: '09:00:00', end_time: '10:00:00' }] });
    assert.equal(new Date(slotsOnDate(s, '2026-11-23')[0]!.startsAtMs).toISOString(), '2026-11-23T09:00:00.000Z');
    assert.equal(new Date(slotsOnDate(s, '2027-06-07')[0]!.startsAtMs).toISOString(), '2027-06-07T08:00:00.000Z');
  });
});

describe('free, bookable', () => {
  it('needs the notice: hers, never less than the platform\'s', () => {
    const s = schedule();
    const slots = slotsOnDate(s, '2026-11-23');
    const r = rules('2026-11-23T07:00:00Z'); // 08:00 Madrid: the platform's 120 minutes end at 10:00
    assert.deepEqual(slots.map((x) => isBookable(s, x, r)), [false, true, true, true]);
    const shorter = schedule({ minNoticeMinutes: 60 });
    assert.deepEqual(slots.map((x) => isBookable(shorter, x, r)), [false, true, true, true], 'a shorter notice than the platform\'s is not honoured');
    const longer = schedule({ minNoticeMinutes: 480 }); // until 16:00
    assert.deepEqual(slots.map((x) => isBookable(longer, x, r)), [false, false, true, true]);
    const day = schedule({ minNoticeMinutes: 1440 });
    assert.equal(nextAvailability(day, r, 90).value, '2026-11-25');
  });

  it('offers dates within her horizon only (today and the next horizon − 1 days)', () => {
    const everyDay = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '10:00:00', end_time: '11:00:00' }));
    const s = schedule({ weekly: everyDay, horizonDays: 14 });
    const r = rules('2026-11-23T12:00:00Z'); // Monday 13:00: today is over
    const lastIn = slotsOnDate(s, '2026-12-06')[0]!; // today + 13
    const firstOut = slotsOnDate(s, '2026-12-07')[0]!; // today + 14
    assert.equal(isBookable(s, lastIn, r), true);
    assert.equal(isBookable(s, firstOut, r), false);
    // A schedule whose only hours lie beyond the horizon has no next date.
    const far = schedule({ horizonDays: 14, weekly: [], exceptions: new Map([['2026-12-20', [{ date: '2026-12-20', start_time: '10:00:00', end_time: '11:00:00' }]]]) });
    const next = nextAvailability(far, r, 90);
    assert.equal(next.value, null);
    assert.equal(new Date(next.validThroughMs + 1).toISOString(), '2026-11-23T23:00:00.000Z', 'until a new date enters the horizon (midnight in Madrid)');
    // Availability that lists times beyond the horizon changes at midnight.
    const through = availabilityValidThrough(s, [lastIn, firstOut], r);
    assert.equal(through, at('2026-11-23T23:00:00Z') - 1);
  });

  it('keeps buffer minutes before and after anything occupied, compared as instants', () => {
    // A 60-minute hold 10:00–11:00 Madrid (09:00–10:00Z); her length is now 45 with a 15-minute buffer.
    const occupied: OccupiedInterval[] = [{ startMs: at('2026-11-23T09:00:00Z'), endMs: at('2026-11-23T10:00:00Z') }];
    const s = schedule({ lengthMinutes: 45, bufferMinutes: 15, occupied, weekly: [{ weekday: 1, start_time: '08:00:00', end_time: '14:00:00' }] });
    const r = rules('2026-11-22T12:00:00Z');
    const free = slotsOnDate(s, '2026-11-23').filter((x) => isBookable(s, x, r)).map((x) => x.start_time);
    // Grid 08:00, 09:00, 10:00, 11:00, 12:00, 13:00: 09:00–09:45 ends 15 minutes before the hold (free);
    // 10:00 overlaps; 11:00 starts right at the hold's end, with no buffer between (taken).
    assert.deepEqual(free, ['08:00:00', '09:00:00', '12:00:00', '13:00:00']);
    // A 30-minute buffer: grid 08:00, 09:15, 10:30, 11:45, 13:00; 09:15–10:00 (+30 > 10:00) is too close.
    const wide = schedule({ lengthMinutes: 45, bufferMinutes: 30, occupied, weekly: [{ weekday: 1, start_time: '08:00:00', end_time: '14:00:00' }] });
    assert.deepEqual(slotsOnDate(wide, '2026-11-23').filter((x) => isFree(wide, x)).map((x) => x.start_time), ['08:00:00', '11:45:00', '13:00:00']);
  });

  it('honours a hold\'s recorded cells (its end + the buffer it was made with) after her buffer shrank', () => {
    const occupied: OccupiedInterval[] = [{ startMs: at('2026-11-23T09:00:00Z'), endMs: at('2026-11-23T10:00:00Z'), tailMs: at('2026-11-23T10:30:00Z') }];
    const s = schedule({ lengthMinutes: 30, bufferMinutes: 0, occupied, weekly: [{ weekday: 1, start_time: '10:00:00', end_time: '13:00:00' }] });
    const free = slotsOnDate(s, '2026-11-23').filter((x) => isFree(s, x)).map((x) => x.start_time);
    assert.deepEqual(free, ['11:30:00', '12:00:00', '12:30:00']);
  });

  it('treats busy times of her own calendar, however unaligned, as occupied', () => {
    const occupied: OccupiedInterval[] = [
      { startMs: at('2026-11-23T08:05:00Z'), endMs: at('2026-11-23T08:20:00Z') }, // 09:05–09:20 Madrid
      { startMs: at('2026-11-22T00:00:00Z'), endMs: at('2026-11-23T15:00:00Z') - 60_000 }, // a long one ending 15:59 Madrid
    ];
    const s = schedule({ occupied });
    assert.deepEqual(slotsOnDate(s, '2026-11-23').filter((x) => isFree(s, x)).map((x) => x.start_time), ['16:00:00', '17:00:00']);
    const only = schedule({ occupied: [occupied[0]!] });
    assert.deepEqual(slotsOnDate(only, '2026-11-23').filter((x) => isFree(only, x)).map((x) => x.start_time), ['10:00:00', '16:00:00', '17:00:00']);
  });

  it('finds the next available date, skipping full and closed days', () => {
    const r = rules('2026-11-23T15:00:00Z'); // 16:00 Madrid on Monday: Monday is over
    assert.equal(nextAvailability(schedule(), r, 90).value, '2026-11-25');
    assert.equal(nextAvailability(schedule({ exceptions: new Map([closed('2026-11-25')]) }), r, 90).value, '2026-11-30');
    assert.equal(nextAvailability(schedule(), r, 2).value, null, 'nothing within a 2-day horizon');
    assert.equal(nextAvailability(schedule({ horizonDays: 2 }), r, 90).value, null, 'nor within hers');
    assert.equal(nextAvailability(schedule({ weekly: [] }), r, 90).value, null);
    const full = schedule({ occupied: [{ startMs: at('2026-11-25T09:00:00Z'), endMs: at('2026-11-25T11:00:00Z') }] });
    assert.equal(nextAvailability(full, r, 90).value, '2026-11-30');
  });
});

describe('calendar rules', () => {
  it('accepts quarter hours only', () => {
    for (const t of ['09:00:00', '09:15', '23:45:00', '00:00:00']) assert.equal(isQuarterHour(t), true, t);
    for (const t of ['09:10:00', '09:15:30', '25:00:00', '9:00', '09:60:00']) assert.equal(isQuarterHour(t), false, t);
  });

  it('covers [start, end + buffer) with 15-minute UTC cells', () => {
    assert.deepEqual(cellsCovering(at('2026-11-23T09:00:00Z'), at('2026-11-23T10:00:00Z')), [
      '2026-11-23T09:00:00.000Z',
      '2026-11-23T09:15:00.000Z',
      '2026-11-23T09:30:00.000Z',
      '2026-11-23T09:45:00.000Z',
    ]);
    assert.equal(cellsCovering(at('2026-11-23T09:00:00Z'), at('2026-11-23T10:45:00Z')).length, 7);
  });
});
