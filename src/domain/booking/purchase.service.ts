/**
 * The hold page's choices (format, note, phone) and the visitor's zone, stored on the pending
 * booking intent and copied to the consultation when it is confirmed (BookingService.confirm).
 * Who may choose is who may confirm (`mayConfirm`): an AI app's hold is its person's alone, any
 * other pending hold is a capability of its link; nothing is changed once it is confirmed or expired.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findIntentByToken } from '../../db/repositories/booking.repository.ts';
import { findLawyerOffer, rememberIntentZone, saveIntentChoices, saveIntentPerson, type LawyerOfferRow } from '../../db/repositories/purchase.repository.ts';
import { setUserNameIfMissing } from '../../db/repositories/account.repository.ts';
import type { BookingIntentTable, LanguageAck } from '../../db/schema.ts';
import { languagesInCommon } from '../directory/directory.service.ts';
import { checkPersonName, type PersonNameError } from '../people/person-name.ts';
import { mayConfirm } from './booking.service.ts';
import { detectNoteLanguage } from './note-language.ts';
import { validateChoices, type ChoiceInput, type ChoiceOutcome } from './purchase.ts';

/** Why the person part of the hold page was refused (docs/booking-intents.md#language-mismatch). */
export type PersonError = 'ack_required' | PersonNameError;
export type PersonErrors = Partial<Record<'language_ack' | 'person_name', PersonError>>;

export type ChooseOutcome =
  | { kind: 'saved' }
  | { kind: 'invalid'; errors: Extract<ChoiceOutcome, { ok: false }>['errors'] & PersonErrors }
  | { kind: 'closed' }
  | { kind: 'not_found' };

/** The person choosing, as their account knows them. */
export interface Chooser {
  userId: string;
  /** users.name: null until asked once. */
  name: string | null;
  /** The languages they read (Account, else the site language). */
  languages: readonly string[];
}

/** What the person answers beside the choices: their name (when the account has none) and the mismatch answer. */
export interface PersonInput {
  person_name?: unknown;
  language_ack?: unknown;
}

/**
 * The language check between a person and a lawyer: the languages they share (in the person's
 * order) and whether there is none (a mismatch, said before paying and answered knowingly).
 * A person with no known language is never told of a mismatch.
 */
export function languageMatch(person: readonly string[], lawyer: readonly string[]): { inCommon: string[]; mismatch: boolean } {
  const inCommon = languagesInCommon(person, lawyer);
  return { inCommon, mismatch: person.length > 0 && inCommon.length === 0 };
}

/** A lawyer's languages from her offer row. */
export function offerLanguages(offer: Pick<LawyerOfferRow, 'languages_json'>): string[] {
  try {
    const parsed: unknown = JSON.parse(offer.languages_json ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export class PurchaseService {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /** A lawyer's offer (length, video link, phone, office). */
  offer(lawyerId: string): Promise<LawyerOfferRow | undefined> {
    return findLawyerOffer(this.deps.database.db, lawyerId);
  }

  /**
   * Checks and stores the choices of the person for the hold behind `token`, with who they are:
   * their name (asked once: kept on the account too), their languages and, when the lawyer speaks
   * none of them, their answer ('interpreter' | 'spanish'), which is required.
   */
  async choose(token: string, person: Chooser, input: ChoiceInput & PersonInput): Promise<ChooseOutcome> {
    const db = this.deps.database.db;
    const intent = await findIntentByToken(db, token);
    if (!intent || !mayConfirm(intent, person.userId)) return { kind: 'not_found' };
    const nowIso = this.deps.clock.now().toISOString();
    if (intent.status !== 'pending' || intent.expires_at <= nowIso) return { kind: 'closed' };
    const offer = await findLawyerOffer(db, intent.lawyer_id);
    if (!offer) return { kind: 'not_found' };
    const checked = validateChoices(offer, input);
    const personErrors: PersonErrors = {};
    const { mismatch } = languageMatch(person.languages, offerLanguages(offer));
    const ack: LanguageAck | null = input.language_ack === 'interpreter' || input.language_ack === 'spanish' ? input.language_ack : null;
    if (mismatch && ack === null) personErrors.language_ack = 'ack_required';
    let name = person.name;
    if (name === null) {
      // Asked, not required: a person may book without giving it (the lawyer then sees none, never the email).
      const typed = checkPersonName(input.person_name);
      if (!typed.ok) personErrors.person_name = typed.error;
      else name = typed.name;
    }
    if (!checked.ok || Object.keys(personErrors).length > 0) return { kind: 'invalid', errors: { ...(checked.ok ? {} : checked.errors), ...personErrors } };
    const saved = await db.transaction().execute(async (trx) => {
      // The note's language is told once, when the note is stored: a label for the lawyer, never a translation.
      if (!(await saveIntentChoices(trx, intent.id, nowIso, { ...checked.choices, note_language: detectNoteLanguage(checked.choices.note) }))) return false;
      if (person.name === null && name !== null) await setUserNameIfMissing(trx, person.userId, name);
      return saveIntentPerson(trx, intent.id, nowIso, {
        person_name: name,
        person_languages: JSON.stringify(person.languages),
        language_ack: mismatch ? ack : null,
      });
    });
    return saved ? { kind: 'saved' } : { kind: 'closed' };
  }

  /**
   * What paying needs first from the person (a hold whose choices were never posted: a lawyer with
   * one format): `ack` when the lawyer speaks none of their languages and they have not answered;
   * null when nothing is missing.
   */
  async personMissing(intent: Pick<BookingIntentTable, 'lawyer_id' | 'language_ack'>, person: Chooser): Promise<'ack' | null> {
    const offer = await findLawyerOffer(this.deps.database.db, intent.lawyer_id);
    if (offer && languageMatch(person.languages, offerLanguages(offer)).mismatch && !intent.language_ack) return 'ack';
    return null;
  }

  /**
   * Fills the person on a pending hold that does not have them yet (an AI app's hold, or a
   * single-format hold paid without posting the choices): name and languages; never overwrites.
   */
  async rememberPerson(intent: Pick<BookingIntentTable, 'id' | 'person_name' | 'person_languages'>, person: Pick<Chooser, 'name' | 'languages'>): Promise<void> {
    const fill: { person_name?: string; person_languages?: string } = {};
    if (!intent.person_name && person.name) fill.person_name = person.name;
    if (!intent.person_languages && person.languages.length > 0) fill.person_languages = JSON.stringify(person.languages);
    if (Object.keys(fill).length > 0) await saveIntentPerson(this.deps.database.db, intent.id, this.deps.clock.now().toISOString(), fill);
  }

  /** The visitor's zone (already validated), kept on a pending intent for the receipt, whichever provider confirms it. */
  async rememberZone(intentId: string, zone: string | null): Promise<void> {
    if (zone) await rememberIntentZone(this.deps.database.db, intentId, zone);
  }
}
