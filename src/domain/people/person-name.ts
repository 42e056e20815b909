/**
 * The name a person is known by to the lawyers they book (DESIGN.md §13: asked once, never the
 * email as a name). Given on the hold page the first time (kept on the account), or set and
 * changed under Account. One check for both: trimmed; the short-text rule (no control, invisible
 * formatting or separator characters: third-party-text.ts), at most PERSON_NAME_MAX characters,
 * and not an email address (the lawyer would be shown one as a name). Empty means "no name":
 * the next hold page asks again.
 */
import type { Database } from '../../db/database.ts';
import { setUserName } from '../../db/repositories/account.repository.ts';
import { checkShortText } from '../third-party-text.ts';

/** The longest name a person gives, in characters. */
export const PERSON_NAME_MAX = 100;

export type PersonNameError = 'name_too_long' | 'name_invalid' | 'name_is_email';

/** Something@something.something, anywhere in it: an address, not a name. */
const EMAIL_LIKE = /[^\s@]+@[^\s@]+\.[^\s@]+/u;

/** Checks a name typed by the person: the name to keep (null for none), or why not. */
export function checkPersonName(raw: unknown): { ok: true; name: string | null } | { ok: false; error: PersonNameError } {
  const typed = typeof raw === 'string' ? raw.slice(0, 1000).trim() : '';
  if (typed === '') return { ok: true, name: null };
  if ([...typed].length > PERSON_NAME_MAX) return { ok: false, error: 'name_too_long' };
  if (checkShortText(typed, '/name')) return { ok: false, error: 'name_invalid' };
  if (EMAIL_LIKE.test(typed)) return { ok: false, error: 'name_is_email' };
  return { ok: true, name: typed };
}

export class PersonNameService {
  constructor(private readonly deps: { database: Database }) {}

  /** Account → Your name: sets, changes or (empty) removes it. Bookings already made keep the name they were made with. */
  async set(userId: string, raw: unknown): Promise<{ ok: true; name: string | null } | { ok: false; error: PersonNameError }> {
    const checked = checkPersonName(raw);
    if (checked.ok) await setUserName(this.deps.database.db, userId, checked.name);
    return checked;
  }
}
