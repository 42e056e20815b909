/**
 * The hold page's choices (format, note, phone) and the visitor's zone, stored on the pending
 * booking intent and copied to the consultation when it is confirmed (BookingService.confirm).
 * Who may choose is who may confirm (`mayConfirm`): an AI app's hold is its person's alone, any
 * other pending hold is a capability of its link; nothing is changed once it is confirmed or expired.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findIntentByToken } from '../../db/repositories/booking.repository.ts';
import { findLawyerOffer, rememberIntentZone, saveIntentChoices, type LawyerOfferRow } from '../../db/repositories/purchase.repository.ts';
import { mayConfirm } from './booking.service.ts';
import { detectNoteLanguage } from './note-language.ts';
import { validateChoices, type ChoiceInput, type ChoiceOutcome } from './purchase.ts';

export type ChooseOutcome = { kind: 'saved' } | { kind: 'invalid'; errors: Extract<ChoiceOutcome, { ok: false }>['errors'] } | { kind: 'closed' } | { kind: 'not_found' };

export class PurchaseService {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /** A lawyer's offer (length, video link, phone, office). */
  offer(lawyerId: string): Promise<LawyerOfferRow | undefined> {
    return findLawyerOffer(this.deps.database.db, lawyerId);
  }

  /** Checks and stores the choices of `userId` for the hold behind `token`. */
  async choose(token: string, userId: string, input: ChoiceInput): Promise<ChooseOutcome> {
    const db = this.deps.database.db;
    const intent = await findIntentByToken(db, token);
    if (!intent || !mayConfirm(intent, userId)) return { kind: 'not_found' };
    const nowIso = this.deps.clock.now().toISOString();
    if (intent.status !== 'pending' || intent.expires_at <= nowIso) return { kind: 'closed' };
    const offer = await findLawyerOffer(db, intent.lawyer_id);
    if (!offer) return { kind: 'not_found' };
    const checked = validateChoices(offer, input);
    if (!checked.ok) return { kind: 'invalid', errors: checked.errors };
    // The note's language is told once, when the note is stored: a label for the lawyer, never a translation.
    const choices = { ...checked.choices, note_language: detectNoteLanguage(checked.choices.note) };
    return (await saveIntentChoices(db, intent.id, nowIso, choices)) ? { kind: 'saved' } : { kind: 'closed' };
  }

  /** The visitor's zone (already validated), kept on a pending intent for the receipt, whichever provider confirms it. */
  async rememberZone(intentId: string, zone: string | null): Promise<void> {
    if (zone) await rememberIntentZone(this.deps.database.db, intentId, zone);
  }
}
