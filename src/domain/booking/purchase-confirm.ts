/**
 * What a confirmation copies from the intent to the consultation: the hold page's choices
 * (the format — the lawyer's only one when she offers one —, the note, the phone number) and the
 * person's zone (the confirming request's, else the one the hold page kept), and the person as the
 * lawyer sees them: name, languages, their answer to a language mismatch, the note's language.
 */
import type { ConsultationFormat, LanguageAck } from '../../db/schema.ts';
import type { BookingIntentTable } from '../../db/schema.ts';
import { findLawyerOffer, type LawyerOfferRow } from '../../db/repositories/purchase.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import { knownZone } from './consultation-mail.ts';
import { effectiveFormat, offeredFormats } from './purchase.ts';

export interface Bought {
  columns: {
    format: ConsultationFormat | null;
    note: string | null;
    phone_e164: string | null;
    person_timezone: string | null;
    person_name: string | null;
    person_languages: string | null;
    language_ack: LanguageAck | null;
    note_language: string | null;
  };
  mail: { format: ConsultationFormat | null; note: string | null; phone_e164: string | null; offer: LawyerOfferRow | null };
}

export async function boughtOf(db: Executor, intent: BookingIntentTable, personZone: string | null | undefined): Promise<Bought> {
  const offer = (await findLawyerOffer(db, intent.lawyer_id)) ?? null;
  const format = offer ? effectiveFormat(offeredFormats(offer), intent.format ?? null) : (intent.format ?? null);
  const note = intent.note ?? null;
  // A number only matters for a phone consultation.
  const phone = format === 'phone' ? (intent.phone_e164 ?? null) : null;
  const zone = knownZone(personZone) ?? knownZone(intent.person_timezone);
  // The person as the lawyer sees them (docs/booking-intents.md#who-the-lawyer-sees), as the hold page kept them.
  const person = {
    person_name: intent.person_name ?? null,
    person_languages: intent.person_languages ?? null,
    language_ack: intent.language_ack ?? null,
    note_language: intent.note_language ?? null,
  };
  return { columns: { format, note, phone_e164: phone, person_timezone: zone, ...person }, mail: { format, note, phone_e164: phone, offer } };
}
