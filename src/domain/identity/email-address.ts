/**
 * Email addresses, read one way everywhere (docs/site.md#email-addresses).
 *
 * An address is accepted only as a bare RFC 5322 addr-spec whose local part is a dot-atom of
 * ASCII `atext` and whose domain is a DNS name: no display name, angle brackets, comments,
 * quoted strings, IP literals, lists or whitespace inside. Anything a mail library could read as
 * a different mailbox than the one we count (nodemailer reads `(1)victim@example.com` as
 * `victim@example.com`) is refused rather than repaired, so the address that limits and accounts
 * are keyed on is byte for byte the SMTP envelope recipient.
 *
 * Normal form, computed once: surrounding whitespace trimmed, NFC, the whole address lower-cased
 * (mailbox names are case-insensitive in practice, and one account per mailbox matters more
 * than the rare server that is not), and an internationalised domain converted to its ASCII
 * (A-label, `xn--`) form with UTS #46, which is also what goes on the wire.
 */
import { domainToASCII } from 'node:url';
import { invalidRequest } from '../errors.ts';

/** Why an address was refused. */
export type EmailRefusal =
  /** Nothing there. */
  | 'empty'
  /** Longer than 254 characters, or a local part over 64, once normalised. */
  | 'too_long'
  /** Not exactly one bare `local@domain`: a name, brackets, comments, quotes, spaces, a list. */
  | 'not_bare'
  /** The part before `@` is not a dot-atom (empty, a leading/trailing/double dot, a symbol outside atext). */
  | 'local_part'
  /** Accents or other non-ASCII letters before the `@` (SMTPUTF8 mailboxes are not accepted). */
  | 'local_part_not_ascii'
  /** An address literal (`[127.0.0.1]`) or a numeric host instead of a domain name. */
  | 'ip_literal'
  /** The domain is not a DNS name with at least two labels. */
  | 'domain';

export type EmailParse = { ok: true; address: string } | { ok: false; reason: EmailRefusal };

const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
/** RFC 5322 atext, ASCII only. */
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOT_ATOM = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`);
/** Characters that only ever mean something other than a plain address (RFC 5322 specials and friends). */
const NOT_BARE = /[\s<>()[\]\\",;:]|\p{Cc}|\p{Cf}|\p{Z}/u;
/** Before IDNA mapping: ASCII letters, digits, hyphens and dots, or any non-ASCII character. */
const RAW_DOMAIN = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Parses and normalises an address; never throws. */
export function parseEmailAddress(raw: unknown): EmailParse {
  if (typeof raw !== 'string') return { ok: false, reason: 'empty' };
  const input = raw.trim().normalize('NFC');
  if (input === '') return { ok: false, reason: 'empty' };
  if (input.length > 1000) return { ok: false, reason: 'too_long' };
  if (NOT_BARE.test(input)) return { ok: false, reason: /@\[/.test(input) ? 'ip_literal' : 'not_bare' };
  const at = input.indexOf('@');
  if (at < 0 || at !== input.lastIndexOf('@')) return { ok: false, reason: 'not_bare' };
  const local = input.slice(0, at);
  const rawDomain = input.slice(at + 1);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(local)) return { ok: false, reason: 'local_part_not_ascii' };
  if (!DOT_ATOM.test(local)) return { ok: false, reason: 'local_part' };
  if (!RAW_DOMAIN.test(rawDomain)) return { ok: false, reason: 'domain' };
  // UTS #46 (WHATWG URL): maps case and compatibility forms, checks bidi and joiner rules, and
  // turns Unicode labels into A-labels. It also reads numeric hosts as IPv4 ("0x7f.1"), which
  // the last label's check below refuses.
  const domain = domainToASCII(rawDomain);
  if (domain === '') return { ok: false, reason: 'domain' };
  const labels = domain.split('.');
  if (labels.length < 2 || domain.length > 253 || !labels.every((l) => LABEL.test(l))) return { ok: false, reason: 'domain' };
  if (/^[0-9]+$/.test(labels.at(-1)!) || /^(?:\d+\.){3}\d+$/.test(domain)) return { ok: false, reason: 'ip_literal' };
  const address = `${local.toLowerCase()}@${domain}`;
  if (local.length > MAX_LOCAL || address.length > MAX_ADDRESS) return { ok: false, reason: 'too_long' };
  return { ok: true, address };
}

const REFUSAL_DETAIL: Record<EmailRefusal, string> = {
  empty: 'must be an email address, e.g. name@example.com',
  too_long: 'must be at most 254 characters (64 before the @)',
  not_bare: 'must be just the address, name@example.com: no name, angle brackets, comments, quotes, spaces or second address',
  local_part: 'the part before the @ may hold letters, digits and ! # $ % & \' * + - / = ? ^ _ ` { | } ~, with single dots between them',
  local_part_not_ascii: 'the part before the @ must be written without accents or non-Latin letters',
  ip_literal: 'must end in a domain name, not an IP address',
  domain: 'the part after the @ must be a domain name such as example.com',
};

/** The wording of a refusal, for API problems and the CLI. */
export function emailRefusalDetail(reason: EmailRefusal): string {
  return REFUSAL_DETAIL[reason];
}

/** The normal form of an address, or an invalid_request naming `pointer`. */
export function normalizeEmail(raw: string, pointer = '/email'): string {
  const parsed = parseEmailAddress(raw);
  if (parsed.ok) return parsed.address;
  const shown = String(raw ?? '').slice(0, 300);
  throw invalidRequest(`${JSON.stringify(shown)} is not an email address`, [{ pointer, detail: emailRefusalDetail(parsed.reason) }]);
}
