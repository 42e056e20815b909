/**
 * The Arabic catalogue (src/i18n/ar.ts) as an Arabic reader reads it: the six plural forms,
 * Western digits as Intl writes `ar`, Arabic punctuation, the zones and languages as people say
 * them, and left-to-right text isolated inside Arabic sentences. The pages themselves are walked
 * in test/site/languages.test.ts (over HTTP) and test/browser/arabic-rtl.test.ts (mirrored, in
 * Chromium).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ar } from '../../src/i18n/ar.ts';
import { comma, euros, formatDay } from '../../src/i18n/format.ts';
import { LOCALES, messages, PEOPLE_SECTIONS, textDirection } from '../../src/i18n/index.ts';
import { languageName, listOf, practiceAreaName, zoneName } from '../../src/i18n/reference.ts';
import { leaves } from '../support/catalogues.ts';

/** Every string of the Arabic catalogue, and every function called with sample values. */
function texts(): Array<{ path: string; text: string }> {
  return leaves(ar).flatMap((l) => {
    if (l.kind === 'string') return [{ path: l.path, text: l.value as string }];
    if (l.kind !== 'function') return [];
    const fn = l.value as (...args: unknown[]) => unknown;
    const sample = { email: 'amal@example.com', when: '30 نوفمبر 2026', firms: ['Despacho Ruiz'], consultations: 1, payments: 1, name: 'Amal', topic: 'حجز', language: 'العربية', signedIn: true, message: 'نص', reference: 'msg_1' };
    return [1, 2, 5, 11].flatMap((n) => {
      // The two email bodies take their facts as one object; every other function takes text or counts.
      const out = fn(...(fn.length === 1 && l.path.endsWith('.body') ? [sample] : Array<number>(fn.length).fill(n)));
      return typeof out === 'string' ? [{ path: `${l.path}(${n})`, text: out }] : [];
    });
  });
}

describe('the Arabic catalogue', () => {
  it('is enabled, right to left, and complete for the people sections', () => {
    assert.ok((LOCALES as readonly string[]).includes('ar'));
    assert.equal(textDirection('ar'), 'rtl');
    for (const section of PEOPLE_SECTIONS) assert.equal(messages('ar')[section], ar[section], section);
    // The developer area is English's (DESIGN §12).
    assert.equal(messages('ar').dashboard, messages('en').dashboard);
  });

  it('counts with all six Arabic plural forms', () => {
    assert.equal(ar.home.resultsCount(0), 'لم يُعثر على أي محامٍ');
    assert.equal(ar.home.resultsCount(1), 'عُثر على محامٍ واحد');
    assert.equal(ar.home.resultsCount(2), 'عُثر على محاميَين');
    assert.equal(ar.home.resultsCount(3), 'عُثر على 3 محامين');
    assert.equal(ar.home.resultsCount(11), 'عُثر على 11 محاميًا');
    assert.equal(ar.home.resultsCount(100), 'عُثر على 100 محامٍ');
    assert.equal(ar.bookingPath.minutesLeft(1), 'تتبقى دقيقة واحدة');
    assert.equal(ar.bookingPath.minutesLeft(2), 'تتبقى دقيقتان');
    assert.equal(ar.bookingPath.minutesLeft(14), 'تتبقى 14 دقيقة');
    assert.equal(ar.bookingPath.minutesLeft(10), 'تتبقى 10 دقائق');
    // The counted noun agrees with the number: 500 حرف, 120 حرفًا, 10 أحرف.
    assert.equal(ar.home.needTooLong(500), 'لم يُقرأ إلا أول 500 حرف.');
    assert.match(ar.face.contact.errors.name(120), /120 حرفًا/);
    assert.match(ar.face.contact.errors.message(2, 10), /بين 2 و10 أحرف/);
  });

  it('writes numbers in Western digits, as Intl writes the ar tag, and the Arabic comma between a day and its time', () => {
    assert.match(euros(9000, 'ar'), /^\u200f?90\.00\s€$/);
    const day = formatDay('2026-11-30', 'ar');
    assert.equal(day, 'الاثنين، 30 نوفمبر 2026');
    assert.equal(comma('ar'), '، ');
    assert.equal(comma('es'), ', ');
    const all = texts();
    assert.ok(all.length > 700, `every string and function of the catalogue is read (${all.length})`);
    const indic = all.filter((t) => /[\u0660-\u0669\u06f0-\u06f9]/.test(t.text));
    assert.deepEqual(indic.map((t) => t.path), [], 'no Arabic-Indic digits mixed in');
  });

  it('uses Arabic punctuation in Arabic text: ؟ and ، (never ? or , after an Arabic word)', () => {
    const latin = texts().filter((t) => /[\u0600-\u06ff][?,;]/.test(t.text));
    assert.deepEqual(latin.map((t) => `${t.path}: ${t.text}`), []);
  });

  it('names zones, languages and practice areas as people in Spain say them, Spanish terms kept in Latin letters', () => {
    assert.equal(zoneName('ar', 'Europe/Madrid'), 'توقيت شبه الجزيرة');
    assert.equal(zoneName('ar', 'Africa/Ceuta'), 'توقيت شبه الجزيرة');
    assert.equal(zoneName('ar', 'Atlantic/Canary'), 'توقيت جزر الكناري');
    assert.match(zoneName('ar', 'America/Bogota'), /كولومبيا/, 'any other zone by Intl, in Arabic');
    assert.equal(languageName('ar', 'es'), 'الإسبانية');
    assert.equal(listOf('ar', ['الإسبانية', 'العربية', 'الفرنسية']), 'الإسبانية والعربية والفرنسية');
    assert.equal(practiceAreaName('ar', 'family-reunification', 'x'), 'لمّ شمل الأسرة');
    assert.match(practiceAreaName('ar', 'arraigo-social', 'x'), /\(Arraigo social\)$/);
    assert.match(practiceAreaName('ar', 'tie-and-nie', 'x'), /TIE/);
  });

  it('isolates left-to-right text inside Arabic sentences, so it keeps its order on screen', () => {
    assert.ok(ar.pay.demoCards.includes('\u20664000\u00a00000\u00a00000\u00a00002\u2069'), 'a card number whole, on one line');
    assert.ok(ar.account.addToCalendar.includes('(\u2066.ics\u2069)'));
    // Every isolate is closed.
    for (const t of texts()) assert.equal((t.text.match(/[\u2066-\u2068]/g) ?? []).length, (t.text.match(/\u2069/g) ?? []).length, t.path);
    // What a person typed, or an app names itself, takes its direction from its own first letter.
    assert.equal(ar.home.suggestionsFor('mi TIE caduca?'), 'مجالات تطابق «\u2068mi TIE caduca?\u2069»');
    assert.ok(ar.oauth.consentIntro('Claude').startsWith('يطلب \u2068Claude\u2069'));
  });

  it('points arrows the way an Arabic reader goes: back to the right, on to the left', () => {
    assert.match(ar.home.prev, /^→/);
    assert.match(ar.home.next, /←$/);
    assert.match(ar.pay.back, /^→/);
    assert.match(ar.book.earlier, /^→/);
    assert.match(ar.book.later, /←$/);
  });

  it('writes the card form in Arabic letters: the expiry as month/year, not MM/YY (names of card networks, CVC and Stripe kept as printed)', () => {
    const card = texts().filter((t) => t.path.startsWith('pay.') || t.path.startsWith('bookingPath.clientErrors.'));
    assert.ok(card.some((t) => t.path.startsWith('pay.expiry')), 'the card form is read');
    const kept = /\b(?:American Express|CVC|Stripe|Consulta)\b/g;
    const latin = card.filter((t) => /[A-Za-z]/.test(t.text.replace(kept, '')));
    assert.deepEqual(latin.map((t) => `${t.path}: ${t.text}`), []);
  });
});
