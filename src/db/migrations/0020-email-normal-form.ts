// Frozen migration: never import application code here.
// Email addresses in one normal form (issue 17; docs/site.md#email-addresses): NFC, lower case,
// an internationalised domain in its ASCII (xn--) form. Before, addresses were only trimmed and
// lower-cased, so a Unicode domain or a non-NFC address was stored as typed and no longer matches
// what sign-in, the CLI and the mail outbox look up now.
//
// - users.email: rewritten to the normal form unless another account already holds it. On such a
//   collision the account that already has the normal form keeps it (it is the one every entry
//   point reaches from now on); among several legacy spellings of one free address the oldest
//   account takes it. The others keep their stored address: nobody can sign in to them by email
//   any more, their data stays, and the operator finds them by searching the address.
// - An address that the strict rules refuse (a comment, quotes, a display name, an IP literal)
//   is left as it is: it cannot be repaired without guessing the mailbox, and no entry point can
//   produce or reach it again. Unfinished sign-in challenges to such an address are ended.
// - firm_invitations, sign_in_challenges, mail_outbox and lawyers' contact emails carry no
//   uniqueness: each parseable address is rewritten.
import { domainToASCII } from 'node:url';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOT_ATOM = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`);
const NOT_BARE = /[\s<>()[\]\\",;:]|\p{Cc}|\p{Cf}|\p{Z}/u;
const RAW_DOMAIN = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The rules of 2026-11 (issue 17), copied so that this migration never changes. */
function normalForm(raw: string): string | null {
  const input = raw.trim().normalize('NFC');
  if (input === '' || input.length > 1000 || NOT_BARE.test(input)) return null;
  const at = input.indexOf('@');
  if (at < 0 || at !== input.lastIndexOf('@')) return null;
  const local = input.slice(0, at);
  const rawDomain = input.slice(at + 1);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(local) || !DOT_ATOM.test(local) || !RAW_DOMAIN.test(rawDomain)) return null;
  const domain = domainToASCII(rawDomain);
  const labels = domain.split('.');
  if (domain === '' || labels.length < 2 || domain.length > 253 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^[0-9]+$/.test(labels.at(-1)!)) return null;
  const address = `${local.toLowerCase()}@${domain}`;
  return local.length > 64 || address.length > 254 ? null : address;
}

const PAGE = 1000;

/** Calls `each` for every row of `table`, in pages by primary key (bounded memory). */
async function forEachRow(db: Kysely<any>, table: string, key: string, columns: string[], each: (row: Record<string, any>) => Promise<void>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    let query = db.selectFrom(table).select([key, ...columns]).orderBy(key).limit(PAGE);
    if (after !== null) query = query.where(key, '>', after);
    const rows: Array<Record<string, any>> = await query.execute();
    for (const row of rows) await each(row);
    if (rows.length < PAGE) return;
    after = String(rows.at(-1)![key]);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  // Accounts: collect the legacy spellings first, so that collisions are settled by age.
  const moves: Array<{ id: string; createdAt: string; to: string }> = [];
  await forEachRow(db, 'users', 'id', ['email', 'created_at'], async (row) => {
    const to = normalForm(String(row.email));
    if (to !== null && to !== row.email) moves.push({ id: String(row.id), createdAt: String(row.created_at), to });
  });
  moves.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
  for (const move of moves) {
    const taken = await db.selectFrom('users').select('id').where('email', '=', move.to).executeTakeFirst();
    if (!taken) await db.updateTable('users').set({ email: move.to }).where('id', '=', move.id).execute();
  }

  for (const [table, column] of [
    ['firm_invitations', 'email'],
    ['sign_in_challenges', 'email'],
    ['mail_outbox', 'recipient'],
    ['lawyers', 'contact_email'],
  ] as const) {
    await forEachRow(db, table, 'id', [column], async (row) => {
      const stored = row[column];
      if (stored === null || stored === undefined) return;
      const to = normalForm(String(stored));
      if (to !== null && to !== stored) await db.updateTable(table).set({ [column]: to }).where('id', '=', row.id).execute();
      // A sign-in that could only end in an account nobody can reach again is ended now.
      if (to === null && table === 'sign_in_challenges') {
        await db.updateTable(table).set({ expires_at: sql`created_at` }).where('id', '=', row.id).where('consumed_at', 'is', null).execute();
      }
    });
  }
}

export async function down(): Promise<void> {
  // The old spellings are not kept: the normal form is as good an address for the old code.
}
