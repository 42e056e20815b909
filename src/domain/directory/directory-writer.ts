/**
 * The one way lawyers enter the directory (demo seed and JSON Lines import alike): records are
 * checked against reference data and each other, turned into rows with their derived fields
 * (rating, summary JSON), and written in one transaction that bumps the directory version.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { existingLawyerIds, insertLawyers, type LawyerWrite } from '../../db/repositories/lawyer.repository.ts';
import { lawyerAggregates } from '../../db/repositories/review.repository.ts';
import {
  bumpDirectoryVersion,
  upsertCities,
  upsertPracticeAreas,
  upsertProvinces,
} from '../../db/repositories/reference.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { FieldError } from '../errors.ts';
import { emailRefusalDetail, parseEmailAddress } from '../identity/email-address.ts';
import { checkShortText } from '../third-party-text.ts';
import { CITIES, PROVINCES } from '../demo/spain.ts';
import { PRACTICE_AREAS, type PracticeAreaData } from '../demo/practice-areas.ts';
import { languageByCode } from './languages.ts';
import { BAR_ASSOCIATIONS, barAssociationByName } from '../lawyers/bar-associations.ts';
import { CONSULTATION_LENGTHS, isQuarterHour } from '../lawyers/calendar-rules.ts';
import { isListed, isVerified, offeredFormats } from '../lawyers/listing.ts';
import { verificationExpiry } from '../lawyers/verification-rules.ts';
import { upsertBarAssociations } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import type { LawyerRecord } from './lawyer-record.ts';
import type { ReferenceData } from './reference.service.ts';

/** Writes Spain's provinces and cities and the practice-area tree (idempotent). */
export async function ensureReferenceData(db: Executor, nowIso: string): Promise<void> {
  await upsertProvinces(
    db,
    PROVINCES.map((p) => ({ code: p.code, slug: p.slug, name: p.name, autonomous_community: p.autonomous_community, timezone: p.timezone })),
  );
  await upsertCities(db, CITIES.map((c) => ({ slug: c.slug, name: c.name, province_code: c.province_code })));
  const rows: Array<{ slug: string; name: string; description: string; parent_slug: string | null; position: number }> = [];
  const walk = (areas: readonly PracticeAreaData[], parent: string | null) => {
    for (const a of areas) {
      rows.push({ slug: a.slug, name: a.name, description: a.description, parent_slug: parent, position: rows.length });
      walk(a.children ?? [], a.slug);
    }
  };
  walk(PRACTICE_AREAS, null);
  await upsertPracticeAreas(db, rows);
  await upsertBarAssociations(db, BAR_ASSOCIATIONS.map((b) => ({ id: b.id, name: b.name, province_code: b.provinceCode })));
  await bumpDirectoryVersion(db, nowIso);
}

const overlaps = (a: { start_time: string; end_time: string }, b: { start_time: string; end_time: string }) =>
  a.start_time < b.end_time && b.start_time < a.end_time;

/**
 * Checks a schema-valid record against reference data and turns it into rows.
 * Returns the field errors instead when the record cannot be written.
 */
export function prepareLawyer(record: LawyerRecord, ref: ReferenceData, nowIso: string): { write: LawyerWrite } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const city = ref.cityBySlug.get(record.city);
  if (!city) errors.push({ pointer: '/city', detail: `unknown city slug "${record.city}"` });

  const areaNames = new Map<string, string>();
  let primary = -1;
  record.practice_areas.forEach((a, i) => {
    const area = ref.practiceAreaBySlug.get(a.slug);
    if (!area) errors.push({ pointer: `/practice_areas/${i}/slug`, detail: `unknown practice area "${a.slug}"` });
    else if (areaNames.has(a.slug)) errors.push({ pointer: `/practice_areas/${i}/slug`, detail: `duplicate practice area "${a.slug}"` });
    else areaNames.set(a.slug, area.name);
    if (a.is_primary) {
      if (primary >= 0) errors.push({ pointer: `/practice_areas/${i}/is_primary`, detail: 'only one practice area may be primary' });
      else primary = i;
    }
  });
  if (primary < 0) primary = 0; // none marked: the first listed is the primary one

  record.languages.forEach((code, i) => {
    if (!languageByCode(code)) errors.push({ pointer: `/languages/${i}`, detail: `"${code}" is not an ISO 639-1 language code` });
  });

  // Range edges are quarter hours (calendar-rules.ts): holds are recorded in 15-minute cells.
  const QUARTER = 'must be on a quarter hour (:00, :15, :30 or :45)';
  record.weekly_hours.forEach((w, i) => {
    if (!isQuarterHour(w.start_time)) errors.push({ pointer: `/weekly_hours/${i}/start_time`, detail: QUARTER });
    if (!isQuarterHour(w.end_time)) errors.push({ pointer: `/weekly_hours/${i}/end_time`, detail: QUARTER });
    if (w.start_time >= w.end_time) errors.push({ pointer: `/weekly_hours/${i}/end_time`, detail: 'must be after start_time' });
    record.weekly_hours.forEach((o, j) => {
      if (j < i && o.weekday === w.weekday && overlaps(o, w)) {
        errors.push({ pointer: `/weekly_hours/${i}`, detail: `overlaps weekly_hours/${j} on weekday ${w.weekday}` });
      }
    });
  });
  const exceptions = record.date_exceptions ?? [];
  exceptions.forEach((e, i) => {
    const hasStart = e.start_time !== undefined;
    const hasEnd = e.end_time !== undefined;
    if (hasStart !== hasEnd) errors.push({ pointer: `/date_exceptions/${i}`, detail: 'give both start_time and end_time, or neither (closed all day)' });
    else if (hasStart && !isQuarterHour(e.start_time!)) errors.push({ pointer: `/date_exceptions/${i}/start_time`, detail: QUARTER });
    else if (hasStart && !isQuarterHour(e.end_time!)) errors.push({ pointer: `/date_exceptions/${i}/end_time`, detail: QUARTER });
    else if (hasStart && e.start_time! >= e.end_time!) errors.push({ pointer: `/date_exceptions/${i}/end_time`, detail: 'must be after start_time' });
    else if (hasStart) {
      // Overlapping ranges would generate overlapping slots with different start times.
      exceptions.forEach((o, j) => {
        if (j < i && o.date === e.date && o.start_time !== undefined && o.end_time !== undefined && overlaps(o as never, e as never)) {
          errors.push({ pointer: `/date_exceptions/${i}`, detail: `overlaps date_exceptions/${j} on ${e.date}` });
        }
      });
    }
  });

  const seenBars = new Set<string>();
  record.bar_memberships.forEach((b, i) => {
    const bad = checkShortText(b.bar_name, `/bar_memberships/${i}/bar_name`);
    if (bad) errors.push(bad);
    else if (seenBars.has(b.bar_name)) errors.push({ pointer: `/bar_memberships/${i}/bar_name`, detail: 'duplicate bar membership' });
    seenBars.add(b.bar_name);
  });

  if (record.formats?.office_address) {
    const bad = checkShortText(record.formats.office_address, '/formats/office_address');
    if (bad) errors.push(bad);
  }

  // Third-party short texts reach agents as plain strings: nothing that could break their line.
  const badName = checkShortText(record.name, '/name');
  if (badName) errors.push(badName);

  // The one reading of email addresses (sign-in, accounts and mail use it too).
  let contactEmail: string | null = null;
  if (record.contact_email !== undefined && record.contact_email !== null) {
    const parsed = parseEmailAddress(record.contact_email);
    if (parsed.ok) contactEmail = parsed.address;
    else errors.push({ pointer: '/contact_email', detail: emailRefusalDetail(parsed.reason) });
  }

  if (errors.length > 0 || !city) return { errors };

  // UUIDs are case-insensitive; one canonical spelling keeps duplicates detectable and URLs stable.
  const id = (record.id ?? randomUUID()).toLowerCase();
  // The aggregates come from the review rows written with her (the one rule, docs/reviews.md#aggregates):
  // a new lawyer has no consultation here yet; each imported verified-client review stands for
  // one consultation held before. The record's `total_bookings` is not stored (docs/import-format.md).
  const verifiedReviews = (record.reviews ?? []).filter((r) => r.verified_client !== false);
  const aggregates = lawyerAggregates({
    visibleReviews: verifiedReviews.length,
    ratingSum: verifiedReviews.reduce((s, r) => s + r.rating, 0),
    consultations: 0,
    importedVerifiedReviews: verifiedReviews.length,
  });
  // The lawyers' side (docs/lawyers.md): a record marked verified is vouched for by whoever
  // imports it (the operator): status `verified`, one verification record per membership marked
  // verified (or one without a membership), valid 12 months. `listed: false` is the operator's
  // switch (hidden). The materialised flags come from the one listing rule.
  const formats = record.formats ?? { phone: true };
  const offer = { video_url: formats.video_url ?? null, offers_phone: formats.phone ? 1 : 0, office_address: formats.office_address ?? null };
  const slotLengths = record.weekly_hours.map((w) => w.slot_minutes as number).filter((m) => (CONSULTATION_LENGTHS as readonly number[]).includes(m));
  const consultationMinutes = record.consultation_minutes ?? (slotLengths.length > 0 ? Math.max(...slotLengths) : 60);
  const verifiedBars = record.verified ? record.bar_memberships.filter((b) => b.verified).map((b) => b.bar_name) : [];
  const verificationBars: Array<string | null> = record.verified ? (verifiedBars.length > 0 ? verifiedBars : [null]) : [];
  const facts = {
    status: record.verified ? 'verified' : 'applied',
    currentVerification: verificationBars.length > 0,
    hidden: !record.listed,
    feeCents: record.consultation_fee_cents,
    consultationMinutes,
    formats: offeredFormats(offer),
    practiceAreas: record.practice_areas.length,
    weeklyHours: record.weekly_hours.length,
  };
  const expiresAt = verificationExpiry(nowIso);

  const areasJson = record.practice_areas
    .map((a, i) => ({ name: areaNames.get(a.slug)!, slug: a.slug, is_primary: i === primary }))
    .sort((a, b) => Number(b.is_primary) - Number(a.is_primary));

  return {
    write: {
      lawyer: {
        id,
        name: record.name,
        city_slug: city.slug,
        timezone: city.timezone,
        consultation_fee_cents: record.consultation_fee_cents,
        platform_commission_percent: record.platform_commission_percent,
        bio: record.bio ?? null,
        verified: isVerified(facts) ? 1 : 0,
        listed: isListed(facts) ? 1 : 0,
        ...aggregates,
        practice_areas_json: JSON.stringify(areasJson),
        languages_json: JSON.stringify(record.languages),
        created_at: nowIso,
        updated_at: nowIso,
        contact_email: contactEmail,
        status: facts.status,
        status_reason: null,
        user_id: null,
        hidden: record.listed ? 0 : 1,
        consultation_minutes: consultationMinutes,
        ...offer,
        min_notice_minutes: null,
        buffer_minutes: 0,
        horizon_days: 90,
        verified_until: isVerified(facts) ? expiresAt : null,
      },
      practiceAreas: record.practice_areas.map((a, i) => ({ lawyer_id: id, area_slug: a.slug, is_primary: i === primary ? 1 : 0 })),
      languages: record.languages.map((language) => ({ lawyer_id: id, language })),
      barMemberships: record.bar_memberships.map((b) => ({
        lawyer_id: id,
        bar_name: b.bar_name,
        verified: verifiedBars.includes(b.bar_name) ? 1 : 0,
        bar_association_id: barAssociationByName(b.bar_name)?.id ?? null,
        membership_number: b.membership_number ?? null,
      })),
      verifications: verificationBars.map((barName, i) => ({
        // Deterministic for a given lawyer (the demo seed stays reproducible).
        id: `${id.slice(0, 24)}${String(i).padStart(12, '0')}`,
        lawyer_id: id,
        bar_name: barName,
        bar_association_id: barName === null ? null : (barAssociationByName(barName)?.id ?? null),
        membership_number: record.bar_memberships.find((b) => b.bar_name === barName)?.membership_number ?? null,
        checked_census: 0,
        checked_colegio: 0,
        source: 'import',
        operator_user_id: null,
        note: 'vouched for by the imported record',
        verified_at: nowIso,
        expires_at: expiresAt,
        reminder_sent_at: null,
      })),
      weeklyHours: record.weekly_hours.map((w) => ({ lawyer_id: id, ...w })),
      dateExceptions: (record.date_exceptions ?? []).map((e) => ({
        lawyer_id: id,
        date: e.date,
        start_time: e.start_time ?? null,
        end_time: e.end_time ?? null,
        slot_minutes: e.start_time ? (e.slot_minutes ?? null) : null,
      })),
      reviews: (record.reviews ?? []).map((r) => ({
        id: randomUUID(),
        lawyer_id: id,
        rating: r.rating,
        comment: r.comment ?? null,
        created_at: r.date ? new Date(r.date).toISOString() : null,
        verified_client: r.verified_client === false ? 0 : 1,
      })),
    },
  };
}

/** Ids among `ids` that the directory already has. */
export function findExistingLawyerIds(database: Database, ids: string[]): Promise<Set<string>> {
  return existingLawyerIds(database.db, ids);
}

/** Writes prepared lawyers; the caller owns the transaction and bumps the version once. */
export async function writeLawyers(db: Executor, writes: LawyerWrite[]): Promise<void> {
  await insertLawyers(db, writes);
}
