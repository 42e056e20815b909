/** The visitor's zone: what is accepted, how zones are named, and when two zones differ. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooserOptions, timeIn, validZone, zoneName, zonesDiffer } from '../../src/site/booking/visitor-zone.ts';
import { cardBrand, groupCardNumber } from '../../src/site/booking/confirm.page.tsx';

describe('visitor zones', () => {
  it('accepts IANA names Intl knows, and nothing else', () => {
    for (const z of ['Europe/Madrid', 'Atlantic/Canary', 'America/Argentina/Buenos_Aires', 'Etc/GMT+3', 'UTC']) assert.equal(validZone(z), z);
    for (const z of ['Mars/Olympus', '../etc/passwd', 'Europe/Madrid;x', '<b>', '', 'x'.repeat(65), 'Europe//Madrid', '+01:00', 42, null, undefined]) assert.equal(validZone(z), null, String(z));
  });

  it('names Spain\'s zones as people say them, and others by their generic name and city', () => {
    assert.equal(zoneName('Europe/Madrid', 'es'), 'hora peninsular');
    assert.equal(zoneName('Atlantic/Canary', 'es'), 'hora de Canarias');
    assert.equal(zoneName('Atlantic/Canary', 'en'), 'Canary Islands time');
    // The country in the reader's language tells two zones of one name apart; not the IANA
    // name's English city ("(Bogota)" on a Spanish page, "(Bucharest)" in Arabic).
    assert.equal(zoneName('America/Bogota', 'es'), 'hora estándar de Colombia');
    assert.equal(zoneName('Europe/Kyiv', 'en'), 'Eastern European Time (Ukraine)');
    assert.equal(zoneName('Europe/Bucharest', 'es'), 'hora de Europa oriental (Rumanía)');
    assert.equal(zoneName('Europe/Bucharest', 'ar'), 'توقيت شرق أوروبا (رومانيا)');
    assert.equal(zoneName('Europe/London', 'es'), 'hora de Reino Unido');
    assert.equal(zoneName('America/New_York', 'es'), 'hora oriental (Estados Unidos)', 'a name that does not say its country gets it');
    assert.equal(zoneName('America/Bogota', 'ro'), 'Ora standard a Columbiei', 'a name that says it in another case is left alone');
    // A zone outside the chooser: its name alone, or its city when a chooser zone has the same name.
    assert.equal(zoneName('Pacific/Auckland', 'es'), 'hora de Nueva Zelanda');
    assert.equal(zoneName('Europe/Warsaw', 'en'), 'Central European Time (Warsaw)');
    assert.equal(zoneName('Etc/GMT+3', 'en'), 'GMT+3 (GMT-03:00)');
  });

  it('two zones differ only when their clocks do at that moment', () => {
    const winter = Date.parse('2026-01-15T12:00:00Z');
    const summer = Date.parse('2026-07-15T12:00:00Z');
    assert.equal(zonesDiffer('Europe/Madrid', 'Europe/Paris', winter), false);
    assert.equal(zonesDiffer('Europe/Madrid', 'Atlantic/Canary', winter), true);
    // Morocco keeps UTC+1 all year: Madrid's clock in winter, an hour behind it in summer.
    assert.equal(zonesDiffer('Europe/Madrid', 'Africa/Casablanca', winter), false);
    assert.equal(zonesDiffer('Europe/Madrid', 'Africa/Casablanca', summer), true);
    assert.equal(timeIn(winter, 'Atlantic/Canary', 'es'), '12:00');
    assert.equal(timeIn(winter, 'Europe/Madrid', 'en'), '13:00');
  });

  it('the chooser lists the visitor\'s zone first when it is not among its own', () => {
    assert.equal(chooserOptions('Asia/Tokyo', 'en')[0]!.value, 'Asia/Tokyo');
    assert.equal(chooserOptions('Europe/Madrid', 'es')[0]!.label, 'hora peninsular');
  });
});

describe('card numbers on the checkout', () => {
  it('groups as printed and names the brand', () => {
    assert.equal(groupCardNumber('4242424242424242'), '4242 4242 4242 4242');
    assert.equal(groupCardNumber('3782-822463-10005'), '3782 822463 10005');
    assert.equal(cardBrand('4000 0000 0000 0002'), 'Visa');
    assert.equal(cardBrand('5555555555554444'), 'Mastercard');
    assert.equal(cardBrand('2223003122003222'), 'Mastercard');
    assert.equal(cardBrand('378282246310005'), 'American Express');
    assert.equal(cardBrand('6011111111111117'), 'Discover');
    assert.equal(cardBrand('9999'), null);
  });
});
