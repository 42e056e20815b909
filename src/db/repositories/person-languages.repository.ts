/** The languages a person reads (user_languages, 0034), in their order of preference. */
import type { Executor } from './types.ts';

/** A user's languages, most preferred first; empty when never set. */
export async function listUserLanguages(db: Executor, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('user_languages').select(['language']).where('user_id', '=', userId).orderBy('position').execute();
  return rows.map((r) => r.language);
}

/** Replaces a user's languages (already checked codes, in order). */
export async function replaceUserLanguages(db: Executor, userId: string, languages: readonly string[]): Promise<void> {
  await db.deleteFrom('user_languages').where('user_id', '=', userId).execute();
  if (languages.length > 0) await db.insertInto('user_languages').values(languages.map((language, position) => ({ user_id: userId, language, position }))).execute();
}

/** Stores languages for a user who has none yet (the site language at first sign-in); a no-op otherwise. */
export async function seedUserLanguages(db: Executor, userId: string, languages: readonly string[]): Promise<void> {
  const existing = await db.selectFrom('user_languages').select('language').where('user_id', '=', userId).limit(1).executeTakeFirst();
  if (existing) return;
  await db
    .insertInto('user_languages')
    .values(languages.map((language, position) => ({ user_id: userId, language, position })))
    .onConflict((oc) => oc.columns(['user_id', 'language']).doNothing())
    .execute();
}
