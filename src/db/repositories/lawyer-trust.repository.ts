/**
 * What the public site shows so a stranger can trust a listed lawyer (docs/site.md#trust): her
 * verification in force, her photo's hash, her offer's length and formats, her bios and reviews.
 * Batched by lawyer ids so a results page costs a fixed number of queries, never one per card.
 * Never reads the operator's identity or note.
 */
import type { Executor } from './types.ts';

export interface TrustVerificationRow {
  lawyer_id: string;
  bar_name: string | null;
  bar_association_id: string | null;
  membership_number: string | null;
  verified_at: string;
  expires_at: string;
}

/** Each lawyer's verifications in force (not expired at `nowIso`), newest first. */
export function listVerificationsInForceFor(db: Executor, lawyerIds: readonly string[], nowIso: string): Promise<TrustVerificationRow[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_verifications')
    .select(['lawyer_id', 'bar_name', 'bar_association_id', 'membership_number', 'verified_at', 'expires_at'])
    .where('lawyer_id', 'in', [...lawyerIds])
    .where('expires_at', '>', nowIso)
    .orderBy('lawyer_id')
    .orderBy('verified_at', 'desc')
    .orderBy('id')
    .execute();
}

export interface TrustOfferRow {
  id: string;
  consultation_minutes: number;
  video_url: string | null;
  offers_phone: number;
  office_address: string | null;
  review_count: number;
  photo_sha256: string | null;
  form_of_address: 'female' | 'male' | 'neutral' | null;
}

/** The offer (length, formats), review count, photo hash and form of address of several lawyers, in one query. */
export function listTrustOffers(db: Executor, lawyerIds: readonly string[]): Promise<TrustOfferRow[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyers as l')
    .leftJoin('lawyer_photos as p', 'p.lawyer_id', 'l.id')
    .select(['l.id', 'l.consultation_minutes', 'l.video_url', 'l.offers_phone', 'l.office_address', 'l.review_count', 'l.form_of_address', 'p.sha256 as photo_sha256'])
    .where('l.id', 'in', [...lawyerIds])
    .execute() as Promise<TrustOfferRow[]>;
}

/** A lawyer's bios by language (ISO 639-1). */
export async function listBiosOf(db: Executor, lawyerId: string): Promise<Record<string, string>> {
  const rows = await db.selectFrom('lawyer_bios').select(['language', 'bio']).where('lawyer_id', '=', lawyerId).execute();
  return Object.fromEntries(rows.map((r) => [r.language, r.bio]));
}
