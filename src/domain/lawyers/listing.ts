/**
 * The listing rule, in one place (DESIGN.md §10; docs/lawyers.md). A lawyer is listed — found by
 * search, profile, availability, booking, the site and MCP — exactly when she is verified (status
 * `verified` with a verification record that has not expired), the operator has not hidden her,
 * and her profile is complete: a fee, a consultation length, at least one format, at least one
 * practice area and weekly hours. Anything else reads as "no such lawyer" (404).
 *
 * Search must stay fast, so the rule's outcome is stored in `lawyers.listed` (and the verification
 * part in `lawyers.verified`), which the partial indexes read. `refreshListing` recomputes both
 * after every change that can alter them, in the change's transaction; the expiry sweep
 * (verification.service.ts) does it when a record lapses.
 */
import {
  findLatestVerificationExpiry,
  findListingFacts,
  listVerificationsInForce,
  setMaterialisedListing,
  setMembershipsVerified,
} from '../../db/repositories/lawyer-lifecycle.repository.ts';
import { bumpDirectoryVersion } from '../../db/repositories/reference.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import { CONSULTATION_LENGTHS } from './calendar-rules.ts';

export const LAWYER_STATUSES = ['applied', 'verified', 'refused', 'suspended'] as const;
export type LawyerLifecycleStatus = (typeof LAWYER_STATUSES)[number];

export type ConsultationFormat = 'video' | 'phone' | 'in_person';

/** What the rule reads; every field is a fact stored about the lawyer. */
export interface ListingFacts {
  status: string;
  /** A verification record not yet expired. */
  currentVerification: boolean;
  hidden: boolean;
  feeCents: number | null;
  consultationMinutes: number | null;
  formats: readonly ConsultationFormat[];
  practiceAreas: number;
  weeklyHours: number;
}

/** A part of her profile the listing needs (docs/lawyers.md). */
export type MissingPart = 'fee' | 'length' | 'format' | 'practice area' | 'hours';

/**
 * One reason she is not listed, as the operator needs it (`consulta lawyers show`): not verified
 * (applied, or refused with the operator's reason), the verification expired (on which day),
 * suspended (with the reason), hidden by the operator, or the profile incomplete (which parts).
 */
export type ListingReason =
  | { code: 'not_verified'; status: string; reason: string | null }
  | { code: 'verification_expired'; expiredOn: string | null }
  | { code: 'suspended'; reason: string | null }
  | { code: 'hidden' }
  | { code: 'incomplete'; missing: MissingPart[] };

/** What explains the facts beyond the rule itself: the status's reason and her latest verification's expiry. */
export interface ListingContext {
  statusReason?: string | null;
  /** Her latest verification's `expires_at`, in force or not. */
  latestExpiry?: string | null;
}

/** The listing rule, with its reasons (empty: she is listed), in the order it checks them. */
export function listingReasons(f: ListingFacts, c: ListingContext = {}): ListingReason[] {
  const reasons: ListingReason[] = [];
  if (f.status === 'suspended') reasons.push({ code: 'suspended', reason: c.statusReason ?? null });
  else if (f.status !== 'verified') reasons.push({ code: 'not_verified', status: f.status, reason: c.statusReason ?? null });
  else if (!f.currentVerification) reasons.push({ code: 'verification_expired', expiredOn: c.latestExpiry ? c.latestExpiry.slice(0, 10) : null });
  if (f.hidden) reasons.push({ code: 'hidden' });
  const missing: MissingPart[] = [];
  if (f.feeCents === null || !Number.isInteger(f.feeCents) || f.feeCents < 0) missing.push('fee');
  if (f.consultationMinutes === null || !(CONSULTATION_LENGTHS as readonly number[]).includes(f.consultationMinutes)) missing.push('length');
  if (f.formats.length === 0) missing.push('format');
  if (f.practiceAreas < 1) missing.push('practice area');
  if (f.weeklyHours < 1) missing.push('hours');
  if (missing.length > 0) reasons.push({ code: 'incomplete', missing });
  return reasons;
}

const GAP_OF_PART: Readonly<Record<MissingPart, string>> = { fee: 'no fee', length: 'no consultation length', format: 'no consultation format', 'practice area': 'no practice area', hours: 'no weekly hours' };

/** Why a lawyer is not listed (empty: she is), in the order the rule checks; short words for logs and the listing change. */
export function listingGaps(f: ListingFacts): string[] {
  return listingReasons(f).flatMap((r) => {
    switch (r.code) {
      case 'not_verified':
        return [`status ${r.status}`];
      case 'suspended':
        return ['status suspended'];
      case 'verification_expired':
        return ['verification expired'];
      case 'hidden':
        return ['hidden by the operator'];
      case 'incomplete':
        return r.missing.map((m) => GAP_OF_PART[m]);
    }
  });
}

/** A reason as the operator reads it: "verification expired on 2026-11-01", "profile incomplete: missing fee, hours". */
export function listingReasonText(r: ListingReason): string {
  switch (r.code) {
    case 'not_verified':
      return r.status === 'refused' ? `not verified: refused${r.reason ? ` (${r.reason})` : ''}` : `not verified (status ${r.status})`;
    case 'verification_expired':
      return r.expiredOn ? `verification expired on ${r.expiredOn}` : 'verification expired';
    case 'suspended':
      return r.reason ? `suspended: ${r.reason}` : 'suspended';
    case 'hidden':
      return 'hidden by the operator';
    case 'incomplete':
      return `profile incomplete: missing ${r.missing.join(', ')}`;
  }
}

/** Verified for the directory: status verified and a record not expired. */
export const isVerified = (f: Pick<ListingFacts, 'status' | 'currentVerification'>): boolean => f.status === 'verified' && f.currentVerification;

/** The listing rule. */
export const isListed = (f: ListingFacts): boolean => listingGaps(f).length === 0;

/** The formats a lawyer offers, from her stored offer (a video link must be https). */
export function offeredFormats(row: { video_url: string | null; offers_phone: number; office_address: string | null }): ConsultationFormat[] {
  const formats: ConsultationFormat[] = [];
  if (row.video_url !== null && row.video_url.startsWith('https://')) formats.push('video');
  if (row.offers_phone === 1) formats.push('phone');
  if (row.office_address !== null && row.office_address.trim() !== '') formats.push('in_person');
  return formats;
}

export interface ListingChange {
  lawyerId: string;
  name: string;
  before: { verified: boolean; listed: boolean };
  after: { verified: boolean; listed: boolean };
  gaps: string[];
}

async function loadListingFacts(db: Executor, lawyerId: string, nowIso: string) {
  const row = await findListingFacts(db, lawyerId);
  if (!row) return undefined;
  const inForce = await listVerificationsInForce(db, lawyerId, nowIso);
  const facts: ListingFacts = {
    status: row.status,
    currentVerification: inForce.length > 0,
    hidden: row.hidden === 1,
    feeCents: row.consultation_fee_cents,
    consultationMinutes: row.consultation_minutes,
    formats: offeredFormats(row),
    practiceAreas: Number(row.practice_areas),
    weeklyHours: Number(row.weekly_hours),
  };
  return { row, inForce, facts };
}

/**
 * Whether she is listed now and every reason she is not, from the stored facts (the rule itself,
 * not the materialised flag, so a stale flag cannot hide a reason). Undefined: no such lawyer.
 */
export async function explainListing(db: Executor, lawyerId: string, nowIso: string): Promise<{ listed: boolean; reasons: ListingReason[] } | undefined> {
  const loaded = await loadListingFacts(db, lawyerId, nowIso);
  if (!loaded) return undefined;
  const latestExpiry = loaded.facts.status === 'verified' && !loaded.facts.currentVerification ? await findLatestVerificationExpiry(db, lawyerId) : null;
  const reasons = listingReasons(loaded.facts, { statusReason: loaded.row.status_reason, latestExpiry });
  return { listed: reasons.length === 0, reasons };
}

/**
 * Recomputes a lawyer's materialised `verified`/`listed` flags and her memberships' `verified`
 * from the stored facts, in the caller's transaction. A change is a directory write (the version
 * is bumped: every process drops its cached answers). Undefined when there is no such lawyer.
 */
export async function refreshListing(db: Executor, lawyerId: string, nowIso: string): Promise<ListingChange | undefined> {
  const loaded = await loadListingFacts(db, lawyerId, nowIso);
  if (!loaded) return undefined;
  const { row, inForce, facts } = loaded;
  const after = { verified: isVerified(facts), listed: isListed(facts) };
  const before = { verified: row.verified === 1, listed: row.listed === 1 };
  const bars = [...new Set(inForce.map((v) => v.bar_name).filter((b): b is string => b !== null))];
  const until = after.verified ? inForce.reduce((max, v) => (v.expires_at > max ? v.expires_at : max), '') : null;
  await setMembershipsVerified(db, lawyerId, bars);
  if (await setMaterialisedListing(db, lawyerId, { verified: after.verified ? 1 : 0, listed: after.listed ? 1 : 0, verified_until: until }, nowIso)) {
    await bumpDirectoryVersion(db, nowIso);
  }
  return { lawyerId, name: row.name, before, after, gaps: listingGaps(facts) };
}
