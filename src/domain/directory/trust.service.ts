/**
 * Trust you can see (docs/site.md#trust): what the public site shows beside a listed lawyer so a
 * stranger can judge her — the verification in force (colegio, membership number, date), her
 * photo, her consultation's length and formats, and on the profile her bio in the reader's
 * language and her reviews.
 *
 * Cards are batched: `forLawyers(ids)` costs at most two queries for a whole results page, and
 * nothing while the directory cache holds the answers. The answers live on the directory cache's
 * lawyer entries, so the same change feed that drops a lawyer's search row (a verification,
 * suspension, photo or profile change: `lawyersChanged`/`invalidate`) drops them too; a
 * verification is never shown past its expiry (the cached answer is valid only until then).
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { listPublicReviews } from '../../db/repositories/review.repository.ts';
import { listBiosOf, listTrustOffers, listVerificationsInForceFor } from '../../db/repositories/lawyer-trust.repository.ts';
import { detectNoteLanguage } from '../booking/note-language.ts';
import { barAssociationById } from '../lawyers/bar-associations.ts';
import { offeredFormats, type ConsultationFormat } from '../lawyers/listing.ts';
import { photoPath } from '../lawyers/portal.service.ts';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { sanitizeShortText } from './fence.ts';
import { isFresh, type DirectoryCache } from './reference.service.ts';

/** The verification in force, as the public may see it: never who verified, nor the note. */
export interface PublicVerification {
  /** The colegio's official name (one of the 83), else the bar name she gave. */
  colegio: string;
  membershipNumber: string | null;
  /** `YYYY-MM-DD`, the day it was checked. */
  verifiedOn: string;
  /** `YYYY-MM-DD`, the day it lapses unless renewed. */
  validUntil: string;
}

export interface LawyerTrust {
  verification: PublicVerification | null;
  /** `/lawyer-photos/<id>/<hash>`, or null: the site then shows her initials. */
  photoUrl: string | null;
  consultationMinutes: number;
  formats: ConsultationFormat[];
  reviewCount: number;
  /** How she wants to be named (the badge, "the lawyer"); null: neutral wording. */
  formOfAddress: FormOfAddress | null;
}

export interface PublicReview {
  id: string;
  rating: number;
  /** Third-party text: the page escapes it. */
  comment: string | null;
  date: string | null;
  /** The lawyer's public answer (third-party text), null without one. */
  answer: string | null;
  /**
   * The answer's language (ISO 639-1, detectNoteLanguage), null when it cannot be told: the page
   * quotes it as her words, labelled with the language when it is not the page's (DESIGN.md §13).
   * Told once here, where the profile's page of reviews is cached, not on every rendering.
   */
  answerLanguage: string | null;
  /** The consultation's day (`YYYY-MM-DD`) for a review of a consultation held here; null for an imported review. */
  consultationDate: string | null;
}

export interface ProfileTrust {
  /** Her bios by language (ISO 639-1). */
  bios: Readonly<Record<string, string>>;
  reviews: readonly PublicReview[];
}

/** How many reviews a page of the profile shows; the older ones are on further pages (`?reviews=2`). */
export const PROFILE_REVIEWS = 5;

/** How many pages of reviews a lawyer with `reviewCount` public reviews has (at least one, maybe empty). */
export function reviewPages(reviewCount: number): number {
  return Math.max(1, Math.ceil(reviewCount / PROFILE_REVIEWS));
}
const TRUST_BYTES = 400;

export interface TrustServiceDeps {
  database: Database;
  clock: Clock;
  cache: DirectoryCache;
}

/** Words that join a surname ("de la Fuente", "El Amrani", "van der Berg"): not an initial of their own. */
const PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'y', 'i', 'el', 'al', 'da', 'das', 'do', 'dos', 'di', 'du', 'le', 'van', 'von', 'der', 'den', 'ben', 'bin', 'ibn']);

/**
 * Her initials as a Spanish name is read: the first given name and the FIRST surname — "Lorena
 * Serrano Aguilar" → "LS", not "LA" from the second surname (issue 25 item 15); "María José
 * García López" → "MG"; "Nadia El Amrani" → "NA" (particles skipped); "Ana Costa" → "AC". With
 * three words the middle one is taken as the first surname (two surnames is the Spanish rule).
 */
export function initials(name: string): string {
  // A nickname in quotes ("The Best") is not a name.
  const words = name.replace(/["“”«»][^"“”«»]*["“”«»]/gu, ' ').trim().split(/\s+/u).filter((w) => /\p{L}/u.test(w) && !PARTICLES.has(w.toLocaleLowerCase()));
  const first = (w: string | undefined) => (w ? ([...w].find((c) => /\p{L}/u.test(c)) ?? '') : '');
  const surname = words.length >= 3 ? words[words.length - 2] : words[1];
  const out = words.length > 1 ? first(words[0]) + first(surname) : first(words[0]);
  return out.toLocaleUpperCase() || '?';
}

/** The bio the reader sees: hers in the reader's language when she wrote one, else her default one. */
export function bioFor(locale: string, bios: Readonly<Record<string, string>>, fallback: string | null): string | null {
  const own = bios[locale];
  if (own !== undefined && own.trim() !== '') return own;
  return fallback !== null && fallback.trim() !== '' ? fallback : null;
}

export class TrustService {
  constructor(private readonly deps: TrustServiceDeps) {}

  /** What each card shows, for a page of listed lawyers: at most two queries for the whole page. */
  async forLawyers(lawyerIds: readonly string[]): Promise<Map<string, LawyerTrust>> {
    const { cache, clock, database } = this.deps;
    await cache.current();
    const stamp = cache.stamp();
    const nowMs = clock.now().getTime();
    const ids = [...new Set(lawyerIds.map((id) => id.toLowerCase()))];
    const out = new Map<string, LawyerTrust>();
    const missing: string[] = [];
    for (const id of ids) {
      const hit = cache.lawyer(id, stamp).trust;
      if (hit !== undefined && isFresh(hit, nowMs)) out.set(id, hit.value);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const nowIso = new Date(nowMs).toISOString();
    const [offers, verifications] = await Promise.all([listTrustOffers(database.db, missing), listVerificationsInForceFor(database.db, missing, nowIso)]);
    const inForce = new Map<string, (typeof verifications)[number]>();
    // Newest first per lawyer: the first one seen is the record in force.
    for (const v of verifications) if (!inForce.has(v.lawyer_id)) inForce.set(v.lawyer_id, v);
    for (const o of offers) {
      const v = inForce.get(o.id);
      const trust: LawyerTrust = {
        verification: v
          ? {
              colegio: (v.bar_association_id ? barAssociationById(v.bar_association_id)?.name : undefined) ?? sanitizeShortText(v.bar_name ?? ''),
              membershipNumber: v.membership_number === null ? null : sanitizeShortText(v.membership_number),
              verifiedOn: v.verified_at.slice(0, 10),
              validUntil: v.expires_at.slice(0, 10),
            }
          : null,
        photoUrl: o.photo_sha256 ? photoPath(o.id, o.photo_sha256) : null,
        consultationMinutes: o.consultation_minutes,
        formats: offeredFormats(o),
        reviewCount: o.review_count,
        formOfAddress: o.form_of_address ?? null,
      };
      out.set(o.id, trust);
      const entry = cache.lawyer(o.id, stamp);
      if (entry.trust === undefined) cache.charge(entry, TRUST_BYTES);
      // Valid until the verification lapses (then the lawyer leaves the directory anyway).
      entry.trust = { value: trust, computedAtMs: nowMs, validThroughMs: v ? Date.parse(v.expires_at) - 1 : Number.MAX_SAFE_INTEGER };
    }
    return out;
  }

  /**
   * The profile's bios and one page of reviews (verified clients only; page 1 = the latest),
   * cached like the cards. The caller keeps `page` within `reviewPages(count)`, so the cache
   * holds only pages that exist.
   */
  async forProfile(lawyerId: string, page = 1): Promise<ProfileTrust> {
    const { cache, database } = this.deps;
    await cache.current();
    const stamp = cache.stamp();
    const id = lawyerId.toLowerCase();
    const entry = cache.lawyer(id, stamp);
    const hit = entry.profileTrust?.get(page);
    if (hit !== undefined) return hit;
    const [bios, reviews] = await Promise.all([listBiosOf(database.db, id), listPublicReviews(database.db, id, PROFILE_REVIEWS, (page - 1) * PROFILE_REVIEWS)]);
    const value: ProfileTrust = { bios, reviews: reviews.map((r) => ({ id: r.id, rating: r.rating, comment: r.comment, date: r.created_at, answer: r.answer, answerLanguage: detectNoteLanguage(r.answer), consultationDate: r.consultation_date })) };
    (entry.profileTrust ??= new Map()).set(page, value);
    cache.charge(entry, TRUST_BYTES + Object.values(bios).reduce((n, b) => n + 2 * b.length, 0) + reviews.reduce((n, r) => n + 200 + 2 * ((r.comment?.length ?? 0) + (r.answer?.length ?? 0)), 0));
    return value;
  }
}
