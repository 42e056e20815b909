/**
 * Joining (issue 18 item 1; docs/lawyers.md#joining): a signed-in person applies to be listed as a
 * lawyer. The application is a lawyer record in status `applied`, linked to her account (one per
 * account: applying again answers with the one she has), with the claim the operator will check
 * (colegio and membership number) and her offer. Every field is checked here, with messages meant
 * for the form; the name, number, address and bio are third-party text (third-party-text.ts).
 * The listing rule keeps her unlisted until the operator verifies her (verification.service.ts).
 */
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { insertLawyers } from '../../db/repositories/lawyer.repository.ts';
import { findKnownReferences, findLawyerByUser, findLawyerRecord, listAreasAndLanguages, listMemberships } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import type { DB, LawyerTable } from '../../db/schema.ts';
import { CITIES, PROVINCES } from '../demo/spain.ts';
import { invalidRequest, type FieldError } from '../errors.ts';
import { barAssociationById } from './bar-associations.ts';
import { offeredFormats, refreshListing, type ConsultationFormat } from './listing.ts';
import { areaBySlug, BIO_MAX, checkFee, checkFormOfAddress, checkLanguages, checkOffer, checkPracticeAreas, NAME_MAX, shortText, str } from './profile-checks.ts';

/** The platform's share for a new lawyer, in percent (the operator may change it later). */
export const DEFAULT_COMMISSION_PERCENT = 15;

export interface ApplicationInput {
  name?: unknown;
  colegio?: unknown;
  membershipNumber?: unknown;
  city?: unknown;
  languages?: unknown;
  practiceAreas?: unknown;
  primaryArea?: unknown;
  /** Euros, as typed: "60", "60,50", "60.50". */
  fee?: unknown;
  consultationMinutes?: unknown;
  videoUrl?: unknown;
  phone?: unknown;
  officeAddress?: unknown;
  bio?: unknown;
  /** 'female' | 'male' | 'neutral', or nothing: how the site names her. */
  formOfAddress?: unknown;
}

/** What she claimed, as she sees it on the "pending" page. */
export interface MyApplication {
  id: string;
  status: string;
  statusReason: string | null;
  appliedAt: string;
  name: string;
  contactEmail: string | null;
  colegio: { id: string; name: string } | null;
  membershipNumber: string | null;
  citySlug: string;
  languages: string[];
  practiceAreas: Array<{ slug: string; isPrimary: boolean }>;
  feeCents: number;
  consultationMinutes: number;
  formats: ConsultationFormat[];
  videoUrl: string | null;
  officeAddress: string | null;
  bio: string | null;
  formOfAddress: FormOfAddress | null;
}

export interface ApplicationDeps {
  database: Database;
  clock: Clock;
  caches?: { directory?: { invalidate(): void } };
}

export interface Applicant {
  userId: string;
  email: string;
}

const citiesBySlug = new Map(CITIES.map((c) => [c.slug, c]));
const provinceTimezone = new Map(PROVINCES.map((p) => [p.code, p.timezone]));
/** Checks an application; the clean values or every problem at once. */
export function validateApplication(input: ApplicationInput): { ok: true; value: Omit<MyApplication, 'id' | 'status' | 'statusReason' | 'appliedAt' | 'contactEmail' | 'colegio' | 'formats'> & { colegioId: string; offersPhone: boolean } } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = shortText(input.name, '/name', NAME_MAX, 'give your full name as it appears in the census', errors);

  const colegioId = str(input.colegio).trim();
  const colegio = colegioId === '' ? undefined : barAssociationById(colegioId);
  if (colegioId === '') errors.push({ pointer: '/colegio', detail: 'choose your colegio de la abogacía' });
  else if (!colegio) errors.push({ pointer: '/colegio', detail: 'not one of the 83 Spanish colegios; choose yours from the list' });

  const number = str(input.membershipNumber).trim();
  if (number === '') errors.push({ pointer: '/membership_number', detail: 'give your membership number at your colegio' });
  else if (!/^[0-9A-Za-z./ -]{1,40}$/.test(number)) errors.push({ pointer: '/membership_number', detail: 'letters, digits, dots, slashes, hyphens and spaces only, at most 40' });

  const citySlug = str(input.city).trim();
  const city = citiesBySlug.get(citySlug);
  if (!city) errors.push({ pointer: '/city', detail: citySlug === '' ? 'choose the city where you practise' : 'not a city we know; choose one from the list' });

  const languages = checkLanguages(input.languages, errors);
  const practiceAreas = checkPracticeAreas(input.practiceAreas, input.primaryArea, errors);
  const feeCents = checkFee(input.fee, errors);

  const offer = checkOffer(input, errors);

  // The bio is one paragraph: line breaks typed in the box become spaces, anything else invisible is refused.
  const bio = shortText(str(input.bio).replace(/\r\n|\r|\n/g, ' '), '/bio', BIO_MAX, null, errors);
  const formOfAddress = checkFormOfAddress(input.formOfAddress, errors);

  if (errors.length > 0 || name === null || !colegio || !city) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name,
      colegioId: colegio.id,
      membershipNumber: number,
      citySlug: city.slug,
      languages,
      practiceAreas,
      feeCents,
      ...offer,
      bio,
      formOfAddress,
    },
  };
}

export class ApplicationService {
  private readonly db: Kysely<DB>;

  constructor(private readonly deps: ApplicationDeps) {
    this.db = deps.database.db;
  }

  /** Her application (any status), or null when her account has none. Only ever her own. */
  async mine(applicant: Applicant): Promise<MyApplication | null> {
    const row = await findLawyerByUser(this.db, applicant.userId);
    return row ? this.claimed(row) : null;
  }

  /**
   * An application as she claimed it, by lawyer id — for the operator's queue (the caller is the
   * console, for operators only; the decision is VerificationService's). Null when there is none.
   */
  async claimOf(lawyerId: string): Promise<MyApplication | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(lawyerId)) return null;
    const row = await findLawyerRecord(this.db, lawyerId.toLowerCase());
    return row ? this.claimed(row) : null;
  }

  private async claimed(row: LawyerTable): Promise<MyApplication> {
    const [{ areas, languages }, memberships] = await Promise.all([listAreasAndLanguages(this.db, row.id), listMemberships(this.db, row.id)]);
    const m = memberships[0];
    const colegio = m?.bar_association_id ? barAssociationById(m.bar_association_id) : undefined;
    return {
      id: row.id,
      status: row.status,
      statusReason: row.status_reason,
      appliedAt: row.created_at,
      name: row.name,
      contactEmail: row.contact_email,
      colegio: colegio ? { id: colegio.id, name: colegio.name } : null,
      membershipNumber: m?.membership_number ?? null,
      citySlug: row.city_slug,
      languages,
      practiceAreas: areas.map((a) => ({ slug: a.area_slug, isPrimary: a.is_primary === 1 })),
      feeCents: row.consultation_fee_cents,
      consultationMinutes: row.consultation_minutes,
      formats: offeredFormats(row),
      videoUrl: row.video_url,
      officeAddress: row.office_address,
      bio: row.bio,
      formOfAddress: row.form_of_address ?? null,
    };
  }

  /**
   * Applies for her account. Bad input: a 400 `invalid_request` naming every field. An account
   * that already has a lawyer record gets that record back (`created: false`), unchanged.
   */
  async apply(applicant: Applicant, input: ApplicationInput): Promise<{ application: MyApplication; created: boolean }> {
    const existing = await this.mine(applicant);
    if (existing) return { application: existing, created: false };
    const checked = validateApplication(input);
    if (!checked.ok) throw invalidRequest('the application has problems; fix the fields named', checked.errors);
    const v = checked.value;
    const now = this.deps.clock.now().toISOString();
    const id = randomUUID();
    const colegio = barAssociationById(v.colegioId)!;
    const city = citiesBySlug.get(v.citySlug)!;
    const areasJson = v.practiceAreas
      .map((a) => ({ name: areaBySlug.get(a.slug)!.name, slug: a.slug, is_primary: a.isPrimary }))
      .sort((a, b) => Number(b.is_primary) - Number(a.is_primary));
    // The reference data in the database is what rows point at (an empty database has none yet).
    const known = await findKnownReferences(this.db, city.slug, v.practiceAreas.map((a) => a.slug));
    const missing: FieldError[] = [];
    if (!known.city) missing.push({ pointer: '/city', detail: 'not a city we know; choose one from the list' });
    if (known.areas !== v.practiceAreas.length) missing.push({ pointer: '/practice_areas', detail: 'choose practice areas from the list' });
    if (missing.length > 0) throw invalidRequest('the application has problems; fix the fields named', missing);
    try {
      await this.db.transaction().execute(async (tx) => {
        await insertLawyers(tx, [
          {
            lawyer: {
              id,
              name: v.name,
              city_slug: city.slug,
              timezone: provinceTimezone.get(city.province_code) ?? 'Europe/Madrid',
              consultation_fee_cents: v.feeCents,
              platform_commission_percent: DEFAULT_COMMISSION_PERCENT,
              bio: v.bio,
              verified: 0,
              listed: 0,
              rating_avg: null,
              rating_key: 0,
              review_count: 0,
              total_bookings: null,
              practice_areas_json: JSON.stringify(areasJson),
              languages_json: JSON.stringify(v.languages),
              created_at: now,
              updated_at: now,
              contact_email: applicant.email,
              status: 'applied',
              status_reason: null,
              user_id: applicant.userId,
              hidden: 0,
              consultation_minutes: v.consultationMinutes,
              video_url: v.videoUrl,
              offers_phone: v.offersPhone ? 1 : 0,
              office_address: v.officeAddress,
              min_notice_minutes: null,
              buffer_minutes: 0,
              horizon_days: 90,
              verified_until: null,
              form_of_address: v.formOfAddress,
            },
            practiceAreas: v.practiceAreas.map((a) => ({ lawyer_id: id, area_slug: a.slug, is_primary: a.isPrimary ? 1 : 0 })),
            languages: v.languages.map((language) => ({ lawyer_id: id, language })),
            barMemberships: [{ lawyer_id: id, bar_name: colegio.name, verified: 0, bar_association_id: colegio.id, membership_number: v.membershipNumber }],
            verifications: [],
            weeklyHours: [],
            dateExceptions: [],
            reviews: [],
          },
        ]);
        // The one listing rule decides (status `applied`: unlisted); recorded in the same transaction.
        await refreshListing(tx, id, now);
      });
    } catch (err) {
      // Two submissions at once: `lawyers.user_id` is unique, so the second finds the first.
      const raced = await this.mine(applicant);
      if (raced) return { application: raced, created: false };
      throw err;
    }
    this.deps.caches?.directory?.invalidate();
    return { application: (await this.mine(applicant))!, created: true };
  }
}
