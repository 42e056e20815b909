/**
 * The one email parser (src/domain/identity/email-address.ts): a table of accepted forms with their
 * normal form, a table of refused forms with the reason, and the property that matters for
 * issue 17 — whatever it accepts, the mail library reads as exactly that one mailbox.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
// nodemailer's own parser of `to` (what decides the SMTP envelope).
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { DomainError } from '../../src/domain/errors.ts';
import { normalizeEmail, parseEmailAddress, type EmailRefusal } from '../../src/domain/identity/email-address.ts';

const readByNodemailer = addressparser as (s: string) => Array<{ address?: string; name: string; group?: unknown[] }>;

const ACCEPTED: Array<[string, string]> = [
  ['victim@example.com', 'victim@example.com'],
  ['Victim@Example.COM', 'victim@example.com'],
  ['  victim@example.com\t', 'victim@example.com'],
  ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ['a!#$%&*/=?^_`{|}~-z@example.com', 'a!#$%&*/=?^_`{|}~-z@example.com'],
  ['x@a-b.example', 'x@a-b.example'],
  // Internationalised domains: UTS #46, stored and sent as A-labels.
  ['ana@bücher.de', 'ana@xn--bcher-kva.de'],
  ['ana@BÜCHER.de', 'ana@xn--bcher-kva.de'],
  ['ana@bu\u0308cher.de', 'ana@xn--bcher-kva.de'], // decomposed ü: NFC first
  ['ana@xn--bcher-kva.de', 'ana@xn--bcher-kva.de'],
  ['ana@ｅｘａｍｐｌｅ.com', 'ana@example.com'], // full-width letters fold
  ['ana@例え.jp', 'ana@xn--r8jz45g.jp'],
  [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
];

const REFUSED: Array<[string, EmailRefusal]> = [
  ['', 'empty'],
  ['   ', 'empty'],
  // What nodemailer reads as another mailbox than the string (the attack of issue 17).
  ['(1)victim@example.com', 'not_bare'],
  ['victim@example.com(comment)', 'not_bare'],
  ['victim(x)@example.com', 'not_bare'],
  ['"victim"@example.com', 'not_bare'],
  ['"vic tim"@example.com', 'not_bare'],
  ['Victim <victim@example.com>', 'not_bare'],
  ['<victim@example.com>', 'not_bare'],
  ['victim@example.com, other@example.com', 'not_bare'],
  ['victim@example.com,other@example.com', 'not_bare'],
  ['victim@example.com;other@example.com', 'not_bare'],
  ['group: victim@example.com;', 'not_bare'],
  ['vic tim@example.com', 'not_bare'],
  ['victim @example.com', 'not_bare'],
  ['vic\u0000tim@example.com', 'not_bare'],
  ['vic\u200btim@example.com', 'not_bare'],
  ['victim@exa\u00admple.com', 'not_bare'],
  ['victim\\@example.com', 'not_bare'],
  ['victim@example.com\nBcc: x@example.com', 'not_bare'],
  ['a@b@example.com', 'not_bare'],
  ['victim.example.com', 'not_bare'],
  // IP literals and numeric hosts.
  ['victim@[127.0.0.1]', 'ip_literal'],
  ['victim@[IPv6:::1]', 'ip_literal'],
  ['victim@127.0.0.1', 'ip_literal'],
  ['victim@0x7f.1', 'ip_literal'],
  // Local part.
  ['@example.com', 'local_part'],
  ['.victim@example.com', 'local_part'],
  ['victim.@example.com', 'local_part'],
  ['vic..tim@example.com', 'local_part'],
  ['josé@example.com', 'local_part_not_ascii'],
  ['виктор@example.com', 'local_part_not_ascii'],
  // Domain.
  ['victim@', 'domain'],
  ['victim@localhost', 'domain'],
  ['victim@example.com.', 'domain'],
  ['victim@.example.com', 'domain'],
  ['victim@example..com', 'domain'],
  ['victim@-example.com', 'domain'],
  ['victim@example-.com', 'domain'],
  ['victim@ex_ample.com', 'domain'],
  ['victim@ex%41mple.com', 'domain'],
  ['victim@exam!ple.com', 'domain'],
  ['victim@xn--zz.com', 'domain'],
  [`victim@${'a'.repeat(64)}.com`, 'domain'],
  // Lengths.
  [`${'a'.repeat(65)}@example.com`, 'too_long'],
  [`${'a'.repeat(20)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com`, 'too_long'],
  [`${'a'.repeat(2000)}@example.com`, 'too_long'],
];

describe('parseEmailAddress()', () => {
  for (const [raw, normal] of ACCEPTED) {
    it(`accepts ${JSON.stringify(raw)} as ${normal}`, () => {
      assert.deepEqual(parseEmailAddress(raw), { ok: true, address: normal });
      // Normalising is idempotent: the stored form reads back as itself.
      assert.deepEqual(parseEmailAddress(normal), { ok: true, address: normal });
    });
  }

  for (const [raw, reason] of REFUSED) {
    it(`refuses ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 40)}…` : raw)} (${reason})`, () => {
      assert.deepEqual(parseEmailAddress(raw), { ok: false, reason });
    });
  }

  it('refuses what is not a string', () => {
    for (const v of [undefined, null, 42, {}, ['a@example.com']]) assert.deepEqual(parseEmailAddress(v), { ok: false, reason: 'empty' });
  });

  it('normalizeEmail() throws invalid_request naming the pointer and saying what is wrong', () => {
    assert.equal(normalizeEmail(' Ana@Example.com '), 'ana@example.com');
    assert.throws(
      () => normalizeEmail('Victim <victim@example.com>', '/owner_email'),
      (err: unknown) => {
        assert.ok(err instanceof DomainError);
        assert.equal(err.code, 'invalid_request');
        assert.equal(err.errors?.[0]?.pointer, '/owner_email');
        assert.match(err.errors?.[0]?.detail ?? '', /just the address/);
        return true;
      },
    );
  });

  it('every accepted address is read by nodemailer as exactly that one mailbox, with no name', () => {
    const check = (raw: string) => {
      const parsed = parseEmailAddress(raw);
      if (!parsed.ok) return;
      assert.deepEqual(readByNodemailer(parsed.address), [{ address: parsed.address, name: '' }], raw);
    };
    for (const [raw] of ACCEPTED) check(raw);
    // Random strings over the characters that mean something to an address parser.
    const alphabet = fc.constantFrom(...'aZ09.@-_+!#$%&\'*/=?^`{|}~"()<>[]\\,;: \t\nü\u200b'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 3, maxLength: 30 }), (chars) => check(chars.join(''))),
      { numRuns: 5000 },
    );
    fc.assert(fc.property(fc.emailAddress(), (raw) => check(raw)), { numRuns: 2000 });
  });

  it('every refused variant of the issue that nodemailer would send to victim@example.com is refused', () => {
    for (const [raw] of REFUSED) {
      const read = readByNodemailer(raw);
      if (read.length === 1 && read[0]!.address === 'victim@example.com') assert.equal(parseEmailAddress(raw).ok, false, raw);
    }
  });
});
