import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDays, dateInZone, daysBetween, formatInZone, isoWeekday, offsetMinutesAt, utcMsToDate, zonedToUtcMs } from '../../src/zoned-time.ts';

describe('zoned time', () => {
  it('knows Madrid and the Canaries in winter and summer', () => {
    assert.equal(offsetMinutesAt(Date.parse('2026-01-15T12:00:00Z'), 'Europe/Madrid'), 60);
    assert.equal(offsetMinutesAt(Date.parse('2026-07-15T12:00:00Z'), 'Europe/Madrid'), 120);
    assert.equal(offsetMinutesAt(Date.parse('2026-01-15T12:00:00Z'), 'Atlantic/Canary'), 0);
    assert.equal(offsetMinutesAt(Date.parse('2026-07-15T12:00:00Z'), 'Atlantic/Canary'), 60);
  });

  it('converts wall-clock times to instants on both sides of the DST changes', () => {
    // 2026: summer time starts 29 March, ends 25 October (01:00 UTC both).
    assert.equal(new Date(zonedToUtcMs('2026-03-28', '10:00:00', 'Europe/Madrid')!).toISOString(), '2026-03-28T09:00:00.000Z');
    assert.equal(new Date(zonedToUtcMs('2026-03-29', '10:00:00', 'Europe/Madrid')!).toISOString(), '2026-03-29T08:00:00.000Z');
    assert.equal(new Date(zonedToUtcMs('2026-10-25', '10:00:00', 'Europe/Madrid')!).toISOString(), '2026-10-25T09:00:00.000Z');
    assert.equal(new Date(zonedToUtcMs('2026-03-29', '10:00:00', 'Atlantic/Canary')!).toISOString(), '2026-03-29T09:00:00.000Z');
  });

  it('returns null for a wall-clock time skipped by the spring jump, and the first of a repeated hour', () => {
    assert.equal(zonedToUtcMs('2026-03-29', '02:30:00', 'Europe/Madrid'), null);
    assert.equal(new Date(zonedToUtcMs('2026-10-25', '02:30:00', 'Europe/Madrid')!).toISOString(), '2026-10-25T00:30:00.000Z');
  });

  it('formats RFC 3339 with the offset of that instant', () => {
    assert.equal(formatInZone(Date.parse('2026-11-23T09:00:00Z'), 'Europe/Madrid'), '2026-11-23T10:00:00+01:00');
    assert.equal(formatInZone(Date.parse('2026-07-01T09:00:00Z'), 'Atlantic/Canary'), '2026-07-01T10:00:00+01:00');
    assert.equal(formatInZone(Date.parse('2026-11-23T09:00:00Z'), 'Atlantic/Canary'), '2026-11-23T09:00:00+00:00');
  });

  it('gives the calendar date in a zone (23:30 UTC is already tomorrow in Madrid)', () => {
    assert.equal(dateInZone(Date.parse('2026-11-23T23:30:00Z'), 'Europe/Madrid'), '2026-11-24');
    assert.equal(dateInZone(Date.parse('2026-11-23T23:30:00Z'), 'Atlantic/Canary'), '2026-11-23');
  });

  it('names the UTC date of every day from 1900 to 2400 as Date does, at any instant of the day', () => {
    for (let ms = Date.UTC(1900, 0, 1); ms < Date.UTC(2400, 0, 1); ms += 86_400_000) {
      const expected = new Date(ms).toISOString().slice(0, 10);
      assert.equal(utcMsToDate(ms), expected);
      assert.equal(utcMsToDate(ms + 86_399_999), expected, 'the last millisecond of the day');
    }
    assert.equal(utcMsToDate(Date.UTC(999, 11, 31)), new Date(Date.UTC(999, 11, 31)).toISOString().slice(0, 10));
  });

  it('does calendar arithmetic across months, years and leap days', () => {
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(daysBetween('2026-11-23', '2026-12-06'), 13);
    assert.equal(isoWeekday('2026-11-23'), 1);
    assert.equal(isoWeekday('2026-11-29'), 7);
  });
});
