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

/** Why a lawyer is not listed (empty: she is), in the order the rule checks; for the operator and the portal. */
export function listingGaps(f: ListingFacts): string[] {
  const gaps: string[] = [];
  if (f.status !== 'verified') gaps.push(`status ${f.status}`);
  else if (!f.currentVerification) gaps.push('verification expired');
  if (f.hidden) gaps.push('hidden by the operator');
  if (f.feeCents === null || !Number.isInteger(f.feeCents) || f.feeCents < 0) gaps.push('no fee');
  if (f.consultationMinutes === null || !(CONSULTATION_LENGTHS as readonly number[]).includes(f.consultationMinutes)) gaps.push('no consultation length');
  if (f.formats.length === 0) gaps.push('no consultation format');
  if (f.practiceAreas < 1) gaps.push('no practice area');
  if (f.weeklyHours < 1) gaps.push('no weekly hours');
  return gaps;
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

/**
 * Recomputes a lawyer's materialised `verified`/`listed` flags and her memberships' `verified`
 * from the stored facts, in the caller's transaction. A change is a directory write (the version
 * is bumped: every process drops its cached answers). Undefined when there is no such lawyer.
 */
export async function refreshListing(db: Executor, lawyerId: string, nowIso: string): Promise<ListingChange | undefined> {
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
