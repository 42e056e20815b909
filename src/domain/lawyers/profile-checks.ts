/**
 * The checks a lawyer's claims go through wherever she types them — applying at /join
 * (application.service.ts) and editing her profile and offer in the portal (portal.service.ts):
 * one rule each for languages, practice areas, fee and the consultation's formats, so the two
 * forms can never accept different things. Each check pushes its problems onto `errors` (pointers
 * name the form's fields) and returns the clean value.
 */
import { PRACTICE_AREAS, type PracticeAreaData } from '../demo/practice-areas.ts';
import { languageByCode } from '../directory/languages.ts';
import type { FieldError } from '../errors.ts';
import { checkShortText } from '../third-party-text.ts';
import { CONSULTATION_LENGTHS } from './calendar-rules.ts';
import { isFormOfAddress, type FormOfAddress } from '../../i18n/form-of-address.ts';

export const NAME_MAX = 120;
export const BIO_MAX = 1000;
export const ADDRESS_MAX = 200;
export const VIDEO_URL_MAX = 500;
export const LANGUAGES_MAX = 10;
export const AREAS_MAX = 10;
export const FEE_MAX_EUROS = 1000;

/** Every practice area by slug, the sub-areas included. */
export const areaBySlug = new Map<string, PracticeAreaData>();
(function walk(areas: readonly PracticeAreaData[]) {
  for (const a of areas) {
    areaBySlug.set(a.slug, a);
    walk(a.children ?? []);
  }
})(PRACTICE_AREAS);

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' && v !== '' ? [v] : []);

/** One line of third-party text: trimmed, required or not, at most `max` characters, no control or invisible characters. */
export function shortText(raw: unknown, pointer: string, max: number, required: string | null, errors: FieldError[]): string | null {
  const text = str(raw).trim();
  if (text === '') {
    if (required) errors.push({ pointer, detail: required });
    return null;
  }
  if ([...text].length > max) {
    errors.push({ pointer, detail: `at most ${max} characters (this has ${[...text].length})` });
    return null;
  }
  const bad = checkShortText(text, pointer);
  if (bad) {
    errors.push(bad);
    return null;
  }
  return text;
}

/** The languages she consults in: 1–10 ISO 639-1 codes we know. */
/** How she wants to be named: one of the three, or nothing chosen (null: neutral wording). */
export function checkFormOfAddress(raw: unknown, errors: FieldError[]): FormOfAddress | null {
  const value = str(raw).trim();
  if (value === '') return null;
  if (isFormOfAddress(value)) return value;
  errors.push({ pointer: '/form_of_address', detail: 'choose female, male or neutral' });
  return null;
}

export function checkLanguages(raw: unknown, errors: FieldError[]): string[] {
  const languages = [...new Set(strings(raw).map((l) => l.trim().toLowerCase()))];
  if (languages.length === 0) errors.push({ pointer: '/languages', detail: 'choose at least one language you consult in' });
  else if (languages.length > LANGUAGES_MAX) errors.push({ pointer: '/languages', detail: `at most ${LANGUAGES_MAX} languages` });
  else if (languages.some((l) => !languageByCode(l))) errors.push({ pointer: '/languages', detail: 'choose languages from the list' });
  return languages;
}

/** Her practice areas (1–10 known slugs) with one primary: the one she names, else the first. */
export function checkPracticeAreas(rawAreas: unknown, rawPrimary: unknown, errors: FieldError[]): Array<{ slug: string; isPrimary: boolean }> {
  const areas = [...new Set(strings(rawAreas).map((a) => a.trim()))];
  let primary = str(rawPrimary).trim();
  if (areas.length === 0) errors.push({ pointer: '/practice_areas', detail: 'choose at least one practice area' });
  else if (areas.length > AREAS_MAX) errors.push({ pointer: '/practice_areas', detail: `at most ${AREAS_MAX} practice areas` });
  else if (areas.some((a) => !areaBySlug.has(a))) errors.push({ pointer: '/practice_areas', detail: 'choose practice areas from the list' });
  else if (primary === '') primary = areas[0]!;
  else if (!areas.includes(primary)) errors.push({ pointer: '/primary_area', detail: 'your main practice area must be one of the areas you chose' });
  return areas.map((slug) => ({ slug, isPrimary: slug === primary }));
}

/** Her fee for one consultation, typed in euros ("60", "60,50"), in cents. */
export function checkFee(raw: unknown, errors: FieldError[]): number {
  const feeText = str(raw).trim().replace(',', '.');
  if (feeText === '') errors.push({ pointer: '/fee', detail: 'give your fee for one consultation, in euros' });
  else if (!/^\d{1,4}(\.\d{1,2})?$/.test(feeText)) errors.push({ pointer: '/fee', detail: 'a number of euros, such as 60 or 60,50' });
  else {
    const feeCents = Math.round(Number(feeText) * 100);
    if (feeCents > FEE_MAX_EUROS * 100) errors.push({ pointer: '/fee', detail: `at most ${FEE_MAX_EUROS} euros` });
    return feeCents;
  }
  return 0;
}

export interface OfferFields {
  consultationMinutes?: unknown;
  videoUrl?: unknown;
  phone?: unknown;
  officeAddress?: unknown;
}

/** Her consultation: a length, and at least one format (video needs an https link, in person an address). */
export function checkOffer(input: OfferFields, errors: FieldError[]): { consultationMinutes: number; videoUrl: string | null; offersPhone: boolean; officeAddress: string | null } {
  const minutes = Number(str(input.consultationMinutes));
  if (!(CONSULTATION_LENGTHS as readonly number[]).includes(minutes)) errors.push({ pointer: '/consultation_minutes', detail: 'choose 30, 45, 60 or 90 minutes' });
  let videoUrl: string | null = null;
  const videoText = str(input.videoUrl).trim();
  if (videoText !== '') {
    let url: URL | null = null;
    try {
      url = new URL(videoText);
    } catch {
      url = null;
    }
    if (videoText.length > VIDEO_URL_MAX) errors.push({ pointer: '/video_url', detail: `at most ${VIDEO_URL_MAX} characters` });
    else if (!url || url.protocol !== 'https:' || !videoText.toLowerCase().startsWith('https://') || url.username !== '' || url.password !== '') errors.push({ pointer: '/video_url', detail: 'your meeting link must be a full https:// address' });
    else if (checkShortText(videoText, '/video_url')) errors.push(checkShortText(videoText, '/video_url')!);
    else videoUrl = url.href;
  }
  const offersPhone = input.phone === true || input.phone === 'on' || input.phone === '1';
  const officeAddress = shortText(input.officeAddress, '/office_address', ADDRESS_MAX, null, errors);
  if (videoText === '' && !offersPhone && str(input.officeAddress).trim() === '') {
    errors.push({ pointer: '/formats', detail: 'offer at least one format: a video meeting link, phone, or an office address' });
  }
  return { consultationMinutes: minutes, videoUrl, offersPhone, officeAddress };
}
