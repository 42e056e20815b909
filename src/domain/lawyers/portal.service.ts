/**
 * The lawyer's portal (docs/lawyers.md#the-portal): what she sees of her own record and the
 * writes she may make to her profile, her consultation offer and her photo. Every method takes
 * the lawyer record the site found from her account (`forUser`); no id from a request ever
 * reaches here, so she can only ever read and change her own.
 *
 * Each write runs in one transaction that re-applies the listing rule (refreshListing: filling
 * in the last missing piece lists her) and records the change for every process's caches (the
 * directory version and the lawyer change feed), so the API, the site and MCP show it at once.
 * Names, bios and addresses are third-party text: the short-text rule applies on the way in,
 * pages escape them and agents get them fenced.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findKnownReferences, findLawyerByUser, findLawyerRecord, findListingFacts, listAreasAndLanguages, listVerificationsInForce } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import {
  deletePhoto,
  findPhoto,
  findPhotoMeta,
  listBios,
  listPhotoMeta,
  replaceAreasAndLanguages,
  replaceBios,
  setSlotMinutes,
  updateLawyerOffer,
  updateLawyerProfile,
  upsertPhoto,
  type PhotoMeta,
} from '../../db/repositories/lawyer-portal.repository.ts';
import { bumpDirectoryVersion, recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { DB, LawyerPhotoTable, LawyerTable } from '../../db/schema.ts';
import { invalidRequest, type FieldError } from '../errors.ts';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { areaBySlug, BIO_MAX, checkFee, checkFormOfAddress, checkLanguages, checkOffer, checkPracticeAreas, NAME_MAX, shortText, str } from './profile-checks.ts';
import { CONSULTATION_LENGTHS } from './calendar-rules.ts';
import { isListed, isVerified, offeredFormats, refreshListing, type ConsultationFormat, type ListingFacts } from './listing.ts';
import { PhotoRefusedError, reencodePhoto } from './photo.ts';
import { normaliseStoredPhotos, type PhotoNormaliseReport, type PhotoOutcome } from './photo-normalise.ts';

/** The languages she writes a bio in on the portal; `lawyers.bio` is the first she filled. */
export const BIO_LANGUAGES = ['es', 'en'] as const;
export type BioLanguage = (typeof BIO_LANGUAGES)[number];

/** A photo's limits: 2 MB, and only these types (never SVG: it is a document that runs script). */
export const PHOTO_MAX_BYTES = 2 * 1024 * 1024;
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoType = (typeof PHOTO_TYPES)[number];

/** What keeps her out of the directory, in the listing rule's order; each has a page to fix it. */
export type ListingGap = 'verification' | 'hidden' | 'fee' | 'length' | 'format' | 'practice_area' | 'weekly_hours';

export interface PortalOverview {
  lawyerId: string;
  name: string;
  status: 'applied' | 'verified' | 'refused' | 'suspended' | string;
  statusReason: string | null;
  /** When her verification in force ends (status verified, not expired), else null. */
  verifiedUntil: string | null;
  /** How the site names her; null: neutral wording. */
  formOfAddress: FormOfAddress | null;
  listed: boolean;
  gaps: ListingGap[];
  photoUrl: string | null;
}

export interface PortalProfile {
  name: string;
  /** Her bio per portal language ('' when none). */
  bios: Record<BioLanguage, string>;
  languages: string[];
  practiceAreas: string[];
  primaryArea: string;
  feeCents: number;
  /** How the site names her; null until she chose (neutral wording). */
  formOfAddress: FormOfAddress | null;
  photo: PhotoMeta | null;
  photoUrl: string | null;
}

export interface PortalOffer {
  consultationMinutes: number;
  videoUrl: string | null;
  offersPhone: boolean;
  officeAddress: string | null;
  formats: ConsultationFormat[];
}

export interface ProfileInput {
  name?: unknown;
  bios?: Partial<Record<string, unknown>>;
  languages?: unknown;
  practiceAreas?: unknown;
  primaryArea?: unknown;
  /** Euros, as typed: "60", "60,50". */
  fee?: unknown;
  /** 'female' | 'male' | 'neutral', or nothing (neutral wording). */
  formOfAddress?: unknown;
}

export interface OfferInput {
  consultationMinutes?: unknown;
  videoUrl?: unknown;
  phone?: unknown;
  officeAddress?: unknown;
}

export interface PortalDeps {
  database: Database;
  clock: Clock;
  caches?: { directory?: { invalidate(): void; lawyersChanged?(ids: Iterable<string>): void } };
}

/** The URL of a photo: the hash names the bytes, so the answer may be cached for a year. */
export const photoPath = (lawyerId: string, sha256: string): string => `/lawyer-photos/${lawyerId}/${sha256.slice(0, 32)}`;

/** Which image the bytes are, by their magic numbers (what they claim to be is not asked). */
export function sniffImage(bytes: Uint8Array): PhotoType | null {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return 'image/png';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return null;
}

/** Checks her profile; the clean values or every problem at once (pointers name the form's fields). */
export function validateProfile(input: ProfileInput): { ok: true; value: { name: string; bios: Record<BioLanguage, string | null>; languages: string[]; practiceAreas: Array<{ slug: string; isPrimary: boolean }>; feeCents: number; formOfAddress: FormOfAddress | null } } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = shortText(input.name, '/name', NAME_MAX, 'give your full name as it appears in the census', errors);
  const bios = {} as Record<BioLanguage, string | null>;
  for (const lang of BIO_LANGUAGES) {
    // A bio is one paragraph: line breaks typed in the box become spaces; anything else invisible is refused.
    bios[lang] = shortText(str(input.bios?.[lang]).replace(/\r\n|\r|\n/g, ' '), `/bio_${lang}`, BIO_MAX, null, errors);
  }

  const languages = checkLanguages(input.languages, errors);
  const practiceAreas = checkPracticeAreas(input.practiceAreas, input.primaryArea, errors);
  const feeCents = checkFee(input.fee, errors);
  const formOfAddress = checkFormOfAddress(input.formOfAddress, errors);

  if (errors.length > 0 || name === null) return { ok: false, errors };
  return { ok: true, value: { name, bios, languages, practiceAreas, feeCents, formOfAddress } };
}

/** Checks her consultation offer: a length, and at least one format (video needs an https link, in person an address). */
export function validateOffer(input: OfferInput): { ok: true; value: { consultationMinutes: number; videoUrl: string | null; offersPhone: boolean; officeAddress: string | null } } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const offer = checkOffer(input, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: offer };
}

/** The listing facts of a lawyer as they stand (what refreshListing reads), without writing. */
async function listingFacts(db: Executor, lawyerId: string, nowIso: string): Promise<ListingFacts | undefined> {
  const row = await findListingFacts(db, lawyerId);
  if (!row) return undefined;
  const inForce = await listVerificationsInForce(db, lawyerId, nowIso);
  return {
    status: row.status,
    currentVerification: inForce.length > 0,
    hidden: row.hidden === 1,
    feeCents: row.consultation_fee_cents,
    consultationMinutes: row.consultation_minutes,
    formats: offeredFormats(row),
    practiceAreas: Number(row.practice_areas),
    weeklyHours: Number(row.weekly_hours),
  };
}

/** The listing rule's gaps as the portal names them (listing.ts' order). */
export function portalGaps(f: ListingFacts): ListingGap[] {
  const gaps: ListingGap[] = [];
  if (!isVerified(f)) gaps.push('verification');
  if (f.hidden) gaps.push('hidden');
  if (f.feeCents === null || !Number.isInteger(f.feeCents) || f.feeCents < 0) gaps.push('fee');
  if (f.consultationMinutes === null || !(CONSULTATION_LENGTHS as readonly number[]).includes(f.consultationMinutes)) gaps.push('length');
  if (f.formats.length === 0) gaps.push('format');
  if (f.practiceAreas < 1) gaps.push('practice_area');
  if (f.weeklyHours < 1) gaps.push('weekly_hours');
  return gaps;
}

/**
 * After a write to her record, in its transaction: the listing rule again, and the change
 * recorded for every process's caches (a directory write when what search shows may change).
 */
export async function afterLawyerWrite(tx: Executor, lawyerId: string, nowIso: string, directoryWrite: boolean): Promise<void> {
  await refreshListing(tx, lawyerId, nowIso);
  if (directoryWrite) await bumpDirectoryVersion(tx, nowIso);
  await recordLawyerChanges(tx, [lawyerId], nowIso);
}

export class PortalService {
  private readonly db: Kysely<DB>;

  constructor(private readonly deps: PortalDeps) {
    this.db = deps.database.db;
  }

  /** The lawyer record linked to this account (any status), or null: she is not a lawyer (yet). */
  async forUser(userId: string): Promise<LawyerTable | null> {
    return (await findLawyerByUser(this.db, userId)) ?? null;
  }

  async photoUrl(lawyerId: string): Promise<string | null> {
    const meta = await findPhotoMeta(this.db, lawyerId);
    return meta ? photoPath(lawyerId, meta.sha256) : null;
  }

  /** Photo URLs of several lawyers (cards, the public profile); lawyers without one are absent. */
  async photoUrls(lawyerIds: readonly string[]): Promise<Map<string, string>> {
    const metas = await listPhotoMeta(this.db, lawyerIds);
    return new Map(metas.map((m) => [m.lawyer_id, photoPath(m.lawyer_id, m.sha256)]));
  }

  /** Her bios by language (ISO 639-1), for the public profile in the reader's language. */
  bios(lawyerId: string): Promise<Record<string, string>> {
    return listBios(this.db, lawyerId);
  }

  async overview(lawyer: LawyerTable): Promise<PortalOverview> {
    const nowIso = this.deps.clock.now().toISOString();
    const facts = (await listingFacts(this.db, lawyer.id, nowIso))!;
    const inForce = await listVerificationsInForce(this.db, lawyer.id, nowIso);
    const verified = isVerified(facts);
    return {
      lawyerId: lawyer.id,
      name: lawyer.name,
      status: lawyer.status,
      statusReason: lawyer.status_reason,
      verifiedUntil: verified ? inForce.reduce((max, v) => (v.expires_at > max ? v.expires_at : max), '') : null,
      formOfAddress: lawyer.form_of_address ?? null,
      listed: isListed(facts),
      gaps: portalGaps(facts),
      photoUrl: await this.photoUrl(lawyer.id),
    };
  }

  async profile(lawyer: LawyerTable): Promise<PortalProfile> {
    const [{ areas, languages }, bios, photo] = await Promise.all([listAreasAndLanguages(this.db, lawyer.id), listBios(this.db, lawyer.id), findPhotoMeta(this.db, lawyer.id)]);
    // A bio written before the portal (at /join, or imported) is her default one: shown as the Spanish one.
    const own = { es: bios.es ?? (Object.keys(bios).length === 0 ? (lawyer.bio ?? '') : ''), en: bios.en ?? '' };
    return {
      name: lawyer.name,
      bios: own,
      languages,
      practiceAreas: areas.map((a) => a.area_slug),
      primaryArea: areas.find((a) => a.is_primary === 1)?.area_slug ?? areas[0]?.area_slug ?? '',
      feeCents: lawyer.consultation_fee_cents,
      formOfAddress: lawyer.form_of_address ?? null,
      photo: photo ?? null,
      photoUrl: photo ? photoPath(lawyer.id, photo.sha256) : null,
    };
  }

  /** Saves her profile (name, bios, languages, areas, fee). Bad input: `invalid_request` naming every field. */
  async saveProfile(lawyer: LawyerTable, input: ProfileInput): Promise<void> {
    const checked = validateProfile(input);
    if (!checked.ok) throw invalidRequest('the profile has problems; fix the fields named', checked.errors);
    const v = checked.value;
    const known = await findKnownReferences(this.db, lawyer.city_slug, v.practiceAreas.map((a) => a.slug));
    if (known.areas !== v.practiceAreas.length) throw invalidRequest('the profile has problems; fix the fields named', [{ pointer: '/practice_areas', detail: 'choose practice areas from the list' }]);
    const nowIso = this.deps.clock.now().toISOString();
    const areasJson = v.practiceAreas
      .map((a) => ({ name: areaBySlug.get(a.slug)!.name, slug: a.slug, is_primary: a.isPrimary }))
      .sort((a, b) => Number(b.is_primary) - Number(a.is_primary));
    await this.db.transaction().execute(async (tx) => {
      await updateLawyerProfile(
        tx,
        lawyer.id,
        {
          name: v.name,
          // The default bio (the API's, fenced for agents): Spanish, else English.
          bio: v.bios.es ?? v.bios.en ?? null,
          consultation_fee_cents: v.feeCents,
          practice_areas_json: JSON.stringify(areasJson),
          languages_json: JSON.stringify(v.languages),
          form_of_address: v.formOfAddress,
        },
        nowIso,
      );
      await replaceAreasAndLanguages(tx, lawyer.id, v.practiceAreas, v.languages);
      await replaceBios(tx, lawyer.id, v.bios, nowIso);
      await afterLawyerWrite(tx, lawyer.id, nowIso, true);
    });
    this.changed(lawyer.id, true);
  }

  async offer(lawyer: LawyerTable): Promise<PortalOffer> {
    const row = (await findLawyerRecord(this.db, lawyer.id))!;
    return { consultationMinutes: row.consultation_minutes, videoUrl: row.video_url, offersPhone: row.offers_phone === 1, officeAddress: row.office_address, formats: offeredFormats(row) };
  }

  /** Saves her consultation offer; her hours' slot length follows the consultation's length. */
  async saveOffer(lawyer: LawyerTable, input: OfferInput): Promise<void> {
    const checked = validateOffer(input);
    if (!checked.ok) throw invalidRequest('the consultation has problems; fix the fields named', checked.errors);
    const v = checked.value;
    const nowIso = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      await updateLawyerOffer(tx, lawyer.id, { consultation_minutes: v.consultationMinutes, video_url: v.videoUrl, offers_phone: v.offersPhone ? 1 : 0, office_address: v.officeAddress }, nowIso);
      await setSlotMinutes(tx, lawyer.id, v.consultationMinutes);
      await afterLawyerWrite(tx, lawyer.id, nowIso, true);
    });
    this.changed(lawyer.id, true);
  }

  /**
   * Saves her photo: JPEG, PNG or WebP by its first bytes (never by its name or declared type),
   * at most 2 MB and PHOTO_MAX_PIXELS, stored re-encoded as a fixed square JPEG without metadata
   * (photo.ts). Anything else: `invalid_request` on `/photo` (`/photo/pixels` for too many pixels).
   */
  async savePhoto(lawyer: LawyerTable, bytes: Uint8Array | null): Promise<string> {
    if (!bytes || bytes.length === 0) throw invalidRequest('no photo', [{ pointer: '/photo', detail: 'choose a photo to upload' }]);
    if (bytes.length > PHOTO_MAX_BYTES) throw invalidRequest('photo too large', [{ pointer: '/photo', detail: 'a photo may be at most 2 MB' }]);
    const type = sniffImage(bytes);
    if (!type) throw invalidRequest('not a photo', [{ pointer: '/photo', detail: 'a photo must be a JPEG, PNG or WebP image' }]);
    let photo;
    try {
      photo = await reencodePhoto(bytes);
    } catch (err) {
      if (!(err instanceof PhotoRefusedError)) throw err;
      throw invalidRequest('not a photo we can use', [{ pointer: err.problem === 'too_many_pixels' ? '/photo/pixels' : '/photo', detail: err.message }]);
    }
    const nowIso = this.deps.clock.now().toISOString();
    const sha256 = createHash('sha256').update(photo.bytes).digest('hex');
    await this.db.transaction().execute(async (tx) => {
      await upsertPhoto(tx, { lawyer_id: lawyer.id, content_type: photo.contentType, sha256, byte_size: photo.bytes.length, data_base64: photo.bytes.toString('base64'), updated_at: nowIso });
      await afterLawyerWrite(tx, lawyer.id, nowIso, true);
    });
    this.changed(lawyer.id, true);
    return photoPath(lawyer.id, sha256);
  }

  async removePhoto(lawyer: LawyerTable): Promise<void> {
    const nowIso = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      if (await deletePhoto(tx, lawyer.id)) await afterLawyerWrite(tx, lawyer.id, nowIso, true);
    });
    this.changed(lawyer.id, true);
  }

  /** A photo's bytes by its URL's parts (public: photos are shown on public pages), or null. */
  async photo(lawyerId: string, hashPrefix: string): Promise<{ contentType: string; bytes: Buffer } | null> {
    if (!/^[0-9a-f]{32}$/.test(hashPrefix) || !/^[0-9a-f-]{36}$/.test(lawyerId)) return null;
    const meta = await findPhotoMeta(this.db, lawyerId);
    if (!meta || !meta.sha256.startsWith(hashPrefix)) return null;
    const row: LawyerPhotoTable | undefined = await findPhoto(this.db, lawyerId, meta.sha256);
    return row ? { contentType: row.content_type, bytes: Buffer.from(row.data_base64, 'base64') } : null;
  }

  /** Brings every stored photo to what an upload gives today, or removes it (photo-normalise.ts). */
  normaliseStoredPhotos(options: { onOutcome?: (outcome: PhotoOutcome) => void; stopped?: () => boolean } = {}): Promise<PhotoNormaliseReport> {
    return normaliseStoredPhotos({ database: this.deps.database, clock: this.deps.clock, onChange: (id) => this.changed(id, true), ...options });
  }

  private changed(lawyerId: string, directoryWrite: boolean): void {
    if (directoryWrite) this.deps.caches?.directory?.invalidate();
    else this.deps.caches?.directory?.lawyersChanged?.([lawyerId]);
  }
}
