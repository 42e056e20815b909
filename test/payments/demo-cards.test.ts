/** The demo provider's card rules (pure): Stripe's test cards, Luhn, expiry and CVC formats. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoCardOutcome, luhnValid } from '../../src/payments/demo.provider.ts';

const NOW = new Date('2026-11-23T08:00:00.000Z');
const card = (number: string, expiry = '12/30', cvc = '123') => demoCardOutcome({ number, expiry, cvc }, NOW);

describe('demo provider: card outcomes', () => {
  it('knows Stripe\'s public test cards, whatever spaces or dashes they are typed with', () => {
    assert.equal(card('4242424242424242'), 'ok');
    assert.equal(card('4242 4242 4242 4242'), 'ok');
    assert.equal(card(' 4242-4242-4242-4242 '), 'ok');
    assert.equal(card('4000 0000 0000 0002'), 'card_declined');
    assert.equal(card('4000 0000 0000 9995'), 'insufficient_funds');
  });

  it('declines numbers that pass Luhn but are not test cards, and calls the rest invalid', () => {
    assert.equal(luhnValid('5555555555554444'), true);
    assert.equal(card('5555 5555 5555 4444'), 'card_declined');
    assert.equal(luhnValid('4242424242424241'), false);
    assert.equal(card('4242 4242 4242 4241'), 'invalid_number');
    assert.equal(card('4242 4242 4242 424x'), 'invalid_number');
    assert.equal(card(''), 'invalid_number');
    assert.equal(card('42424242424'), 'invalid_number'); // too short for a card
  });

  it('accepts any future MM/YY expiry through the end of its month, and any 3–4 digit CVC', () => {
    assert.equal(card('4242424242424242', '11/26'), 'ok');
    assert.equal(card('4242424242424242', '10/26'), 'expired_card');
    assert.equal(card('4242424242424242', '1/27'), 'ok');
    assert.equal(card('4242424242424242', '12 / 99'), 'ok');
    assert.equal(card('4242424242424242', '00/30'), 'invalid_expiry');
    assert.equal(card('4242424242424242', '12/2030'), 'invalid_expiry');
    // Typed without the slash (a form without JavaScript does not add it): the four digits are MMYY.
    assert.equal(card('4242424242424242', '1230'), 'ok');
    assert.equal(card('4242424242424242', '1026'), 'expired_card');
    assert.equal(card('4242424242424242', '1330'), 'invalid_expiry');
    assert.equal(card('4242424242424242', '123'), 'invalid_expiry');
    assert.equal(card('4242424242424242', '12/30', '1234'), 'ok');
    assert.equal(card('4242424242424242', '12/30', '12345'), 'invalid_cvc');
    assert.equal(demoCardOutcome({ number: '4242424242424242', expiry: '11/26', cvc: '123' }, new Date('2026-12-01T00:00:00.000Z')), 'expired_card');
  });
});
