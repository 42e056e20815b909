import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBookable, nextAvailability, slotKey, slotsOnDate, type LawyerSchedule } from '../../src/domain/directory/slots.ts';

const schedule = (overrides: Partial<LawyerSchedule> = {}): LawyerSchedule => ({
  timezone: 'Europe/Madrid',
  weekly: [
    { weekday: 1, start_time: '09:00:00', end_time: '11:30:00', slot_minutes: 60 },
    { weekday: 1, start_time: '16:00:00', end_time: '17:00:00', slot_minutes: 30 },
    { weekday: 3, start_time: '10:00:00', end_time: '12:00:00', slot_minutes: 60 },
  ],
  exceptions: new Map(),
  busy: new Set(),
  ...overrides,
});
const rules = (now: string, leadMinutes = 120) => ({ nowMs: Date.parse(now), minLeadTimeMs: leadMinutes * 60_000 });

describe('slot generation', () => {
  it('cuts ranges into whole slots only, in time order', () => {
    const s = slotsOnDate(schedule(), '2026-11-23');
    assert.deepEqual(s.map((x) => `${x.start_time}-${x.end_time}`), ['09:00:00-10:00:00', '10:00:00-11:00:00', '16:00:00-16:30:00', '16:30:00-17:00:00']);
    assert.equal(new Date(s[0]!.startsAtMs).toISOString(), '2026-11-23T08:00:00.000Z');
  });

  it('offers nothing on days without hours', () => {
    assert.deepEqual(slotsOnDate(schedule(), '2026-11-24'), []);
  });

  it('closes a day, or replaces its hours, by exception', () => {
    const closed = schedule({ exceptions: new Map([['2026-11-23', [{ date: '2026-11-23', start_time: null, end_time: null, slot_minutes: null }]]]) });
    assert.deepEqual(slotsOnDate(closed, '2026-11-23'), []);
    const custom = schedule({ exceptions: new Map([['2026-11-24', [{ date: '2026-11-24', start_time: '12:00:00', end_time: '13:00:00', slot_minutes: 30 }]]]) });
    assert.deepEqual(slotsOnDate(custom, '2026-11-24').map((x) => x.start_time), ['12:00:00', '12:30:00']);
  });

  it('is bookable only beyond the lead time and when not occupied', () => {
    const s = schedule({ busy: new Set([slotKey('2026-11-23', '16:00:00')]) });
    const slots = slotsOnDate(s, '2026-11-23');
    const r = rules('2026-11-23T07:00:00Z'); // 08:00 Madrid: lead time ends 10:00
    assert.deepEqual(slots.map((x) => isBookable(s, x, r)), [false, true, false, true]);
  });

  it('finds the next available date, skipping full and closed days, within the horizon', () => {
    const r = rules('2026-11-23T15:00:00Z'); // 16:00 Madrid on Monday: Monday is over
    assert.equal(nextAvailability(schedule(), r, 90).value, '2026-11-25');
    const closedWed = schedule({ exceptions: new Map([['2026-11-25', [{ date: '2026-11-25', start_time: null, end_time: null, slot_minutes: null }]]]) });
    assert.equal(nextAvailability(closedWed, r, 90).value, '2026-11-30');
    assert.equal(nextAvailability(schedule(), r, 2).value, null, 'nothing within a 2-day horizon');
    assert.equal(nextAvailability(schedule({ weekly: [] }), r, 90).value, null);
  });
});
