/**
 * "Day, the language's comma, HH:MM" was written out by hand in about ten places (pages, emails,
 * the reference line MCP tools read); one helper now writes it, so no place can drift to a Latin
 * comma in Arabic or keep the seconds of a database time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayAndTime, formatDay } from '../../src/i18n/format.ts';

describe('dayAndTime', () => {
  it('joins the day and the time with the language\'s comma and drops the seconds', () => {
    assert.equal(dayAndTime('2026-11-30', '09:00:00', 'es'), `${formatDay('2026-11-30', 'es')}, 09:00`);
    assert.equal(dayAndTime('2026-11-30', '09:00', 'en'), `${formatDay('2026-11-30', 'en')}, 09:00`);
    const ar = dayAndTime('2026-11-30', '18:30:00', 'ar');
    assert.equal(ar, `${formatDay('2026-11-30', 'ar')}، 18:30`);
    assert.ok(!ar.includes(', '), ar);
  });
});
