/**
 * The languages a person reads (DESIGN.md §13; docs/site.md#your-languages): kept on the account
 * in their order of preference, first the site language (until the person edits them under
 * Account), passed by an agent per call, compared with a lawyer's languages everywhere from the
 * search to the payment page.
 */
import type { Database } from '../../db/database.ts';
import { listUserLanguages, replaceUserLanguages, seedUserLanguages } from '../../db/repositories/person-languages.repository.ts';
import { MAX_PERSON_LANGUAGES } from '../directory/directory.service.ts';
import { languageByCode } from '../directory/languages.ts';

export class PersonLanguagesService {
  constructor(private readonly deps: { database: Database }) {}

  /** The account's languages, or `[fallback]` (the site language) when the person never set them. */
  async of(userId: string, fallback: string | null): Promise<string[]> {
    const stored = await listUserLanguages(this.deps.database.db, userId);
    return stored.length > 0 ? stored : fallback ? [fallback] : [];
  }

  /** A visitor's languages: the account's when signed in, else the site language. */
  forVisitor(userId: string | null, siteLanguage: string): Promise<string[]> {
    return userId ? this.of(userId, siteLanguage) : Promise.resolve([siteLanguage]);
  }

  /** Whether the account has its own list (an agent's call without `languages` then uses it). */
  stored(userId: string): Promise<string[]> {
    return listUserLanguages(this.deps.database.db, userId);
  }

  /** The site language becomes the first list of a person who has none (first sign-in). */
  async seed(userId: string, siteLanguage: string): Promise<void> {
    if (languageByCode(siteLanguage)) await seedUserLanguages(this.deps.database.db, userId, [siteLanguage]);
  }

  /**
   * Replaces the list from form values (ISO 639-1 codes, in order). Unknown codes, duplicates and
   * blanks are refused with a reason, never silently dropped.
   */
  async replace(userId: string, codes: readonly string[]): Promise<{ ok: true; languages: string[] } | { ok: false; error: 'unknown' | 'empty' | 'too_many' }> {
    const out: string[] = [];
    for (const raw of codes) {
      const code = raw.trim().toLowerCase();
      if (code === '') continue;
      if (!languageByCode(code)) return { ok: false, error: 'unknown' };
      if (!out.includes(code)) out.push(code);
    }
    if (out.length === 0) return { ok: false, error: 'empty' };
    if (out.length > MAX_PERSON_LANGUAGES) return { ok: false, error: 'too_many' };
    await this.deps.database.db.transaction().execute((trx) => replaceUserLanguages(trx, userId, out));
    return { ok: true, languages: out };
  }
}
