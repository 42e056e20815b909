/** What a person chose on the hold page (0033), and the lawyer's offer it is checked against. */
import type { ConsultationFormat, LanguageAck } from '../schema.ts';
import type { Executor } from './types.ts';

export interface LawyerOfferRow {
  id: string;
  consultation_minutes: number;
  video_url: string | null;
  offers_phone: number;
  office_address: string | null;
  /** Her languages (JSON array of ISO 639-1 codes), for the language check before paying. */
  languages_json?: string;
}

/** A lawyer's consultation offer (listed or not: a hold made before an unlisting is still payable). */
export function findLawyerOffer(db: Executor, lawyerId: string): Promise<LawyerOfferRow | undefined> {
  return db.selectFrom('lawyers').select(['id', 'consultation_minutes', 'video_url', 'offers_phone', 'office_address', 'languages_json']).where('id', '=', lawyerId).executeTakeFirst();
}

/** Stores the hold page's choices on a pending, unexpired intent; false when it is no longer one. */
export async function saveIntentChoices(
  db: Executor,
  intentId: string,
  nowIso: string,
  choices: { format: ConsultationFormat; note: string | null; phone_e164: string | null; note_language: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('booking_intents')
    .set({ format: choices.format, note: choices.note, phone_e164: choices.phone_e164, note_language: choices.note_language })
    .where('id', '=', intentId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Remembers the visitor's zone on a pending intent (the hold and pay pages), for the receipt. */
export async function rememberIntentZone(db: Executor, intentId: string, zone: string): Promise<void> {
  await db
    .updateTable('booking_intents')
    .set({ person_timezone: zone })
    .where('id', '=', intentId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('person_timezone', 'is', null), eb('person_timezone', '!=', zone)]))
    .execute();
}

/**
 * The person behind a pending hold, as the lawyer will see them (0034): their name, the
 * languages they read (JSON array) and, on a language mismatch, their answer. Copied to the
 * consultation on confirmation (purchase-confirm.ts).
 */
export async function saveIntentPerson(
  db: Executor,
  intentId: string,
  nowIso: string,
  person: { person_name?: string | null; person_languages?: string | null; language_ack?: LanguageAck | null; note_language?: string | null },
): Promise<boolean> {
  const result = await db.updateTable('booking_intents').set(person).where('id', '=', intentId).where('status', '=', 'pending').where('expires_at', '>', nowIso).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
