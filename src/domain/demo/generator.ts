/**
 * Deterministic demo directory: a seeded stream of `LawyerRecord`s realistic enough to exercise
 * search, availability, ranking and text fencing, and cheap enough to seed 100,000 lawyers.
 * Every random choice comes from the seeded generator and every date from `referenceDate`, so a
 * seed always produces the same directory whatever day or machine it runs on.
 */
import type { LawyerRecord } from '../directory/lawyer-record.ts';
import { languageByCode } from '../directory/languages.ts';
import {
  ADVERSARIAL_BIO_SNIPPETS,
  BACKGROUNDS,
  BIO_CLOSERS,
  BIO_FOCUS,
  BIO_LANGUAGES,
  BIO_OPENERS,
  MIXED_COMMENTS,
  NEGATIVE_COMMENTS,
  POSITIVE_COMMENTS,
  SPANISH_FEMALE_NAMES,
  SPANISH_MALE_NAMES,
  SPANISH_SURNAMES,
  genderize,
  type BioContext,
  type NameBackground,
} from './names.ts';
import { PRACTICE_AREAS, type PracticeAreaData } from './practice-areas.ts';
import { CITIES, PROVINCES, type CityData, type ProvinceData } from './spain.ts';

export interface GenerateOptions {
  seed: number;
  count: number;
  /** YYYY-MM-DD, "today" for relative dates. */
  referenceDate: string;
}

/** Seeded pseudo-random source; every method draws from the same stream. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  weighted<T>(items: readonly T[], weight: (t: T) => number): T;
  chance(p: number): boolean;
  /** RFC 4122 version-4 layout, but drawn from this stream, so reproducible. */
  uuid(): string;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex32(word: number): string {
  return HEX[(word >>> 24) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
}

/**
 * Seeded generator (sfc32, state expanded from the seed with splitmix32). Math.random cannot be
 * seeded, and sfc32 is small, fast and statistically sound for anything short of cryptography.
 */
export function createRng(seed: number): Rng {
  // Fold any number (negative, above 2^32, fractional) into 32 bits without collapsing nearby seeds.
  let s = Number.isSafeInteger(seed)
    ? (seed >>> 0) ^ (Math.floor(seed / 4294967296) >>> 0)
    : Math.floor(Math.abs(seed) * 2654435761) >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const u32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Discard the first outputs: sfc32 needs a few rounds to mix a freshly seeded state.
  for (let i = 0; i < 12; i++) u32();

  const next = (): number => u32() / 4294967296;
  const rng: Rng = {
    next,
    int(min, max) {
      return min + Math.floor(next() * (max - min + 1));
    },
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted<T>(items: readonly T[], weight: (t: T) => number): T {
      let total = 0;
      for (const item of items) total += weight(item);
      if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
      let r = next() * total;
      for (const item of items) {
        r -= weight(item);
        if (r < 0) return item;
      }
      // Floating-point rounding can leave r a hair above zero after the last item.
      return items[items.length - 1] as T;
    },
    chance(p) {
      return next() < p;
    },
    uuid() {
      const w0 = u32();
      const w1 = ((u32() & 0xffff0fff) | 0x00004000) >>> 0;
      const w2 = ((u32() & 0x3fffffff) | 0x80000000) >>> 0;
      const w3 = u32();
      const h1 = hex32(w1);
      const h2 = hex32(w2);
      return `${hex32(w0)}-${h1.slice(0, 4)}-${h1.slice(4)}-${h2.slice(0, 4)}-${h2.slice(4)}${hex32(w3)}`;
    },
  };
  return rng;
}

/** O(log n) weighted choice over a fixed list; rng.weighted is O(n) and cities are picked per lawyer. */
function weightedPicker<T>(items: readonly T[], weight: (t: T) => number): (rng: Rng) => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const item of items) {
    total += weight(item);
    cumulative.push(total);
  }
  return (rng) => {
    const r = rng.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return items[lo] as T;
  };
}

/* ---------- static lookups, built once per process ---------- */

const provinceByCode = new Map<string, ProvinceData>(PROVINCES.map((p) => [p.code, p]));
const pickCity = weightedPicker<CityData>(CITIES, (c) => c.population);
const pickBackground = weightedPicker<NameBackground>(BACKGROUNDS, (b) => b.weight);

// Share of the demand each top-level area gets; regularisation (arraigo) dominates real caseloads.
const TOP_AREA_WEIGHT: Readonly<Record<string, number>> = {
  residence: 30,
  nationality: 15,
  'international-protection': 12,
  family: 15,
  'work-and-business': 14,
  study: 6,
  'appeals-and-enforcement': 12,
  investors: 3,
};
const pickTopArea = weightedPicker<PracticeAreaData>(PRACTICE_AREAS, (a) => TOP_AREA_WEIGHT[a.slug] ?? 5);

// Names as they read mid-sentence: "residence permits", but "Spanish nationality" and "TIE, NIE...".
const PROPER_FIRST_WORDS = new Set(['Spanish', 'Sephardic']);
function inSentence(name: string): string {
  const first = name.split(' ')[0] ?? '';
  if (PROPER_FIRST_WORDS.has(first) || /^.[A-Z]/.test(name)) return name;
  return name.charAt(0).toLowerCase() + name.slice(1);
}
const areaPhrase = new Map<string, string>();
for (const top of PRACTICE_AREAS) {
  areaPhrase.set(top.slug, inSentence(top.name));
  for (const sub of top.children ?? []) areaPhrase.set(sub.slug, inSentence(sub.name));
}

// How likely a lawyer in each community is to also work in its co-official language.
const REGIONAL_LANGUAGE: Readonly<Record<string, readonly [string, number]>> = {
  Cataluña: ['ca', 0.85],
  'Illes Balears': ['ca', 0.6],
  'Comunitat Valenciana': ['ca', 0.35],
  Galicia: ['gl', 0.6],
  'País Vasco': ['eu', 0.4],
  'Comunidad Foral de Navarra': ['eu', 0.15],
};
const OCCASIONAL_LANGUAGES = ['de', 'it', 'pt', 'fr', 'ru', 'ar', 'ro', 'zh', 'nl', 'pl', 'bg', 'uk', 'hi', 'ka'] as const;

/**
 * The languages of the people who need an immigration lawyer in Spain (issue 26): Moroccans and
 * Algerians (Arabic, often French), West Africans (French), Romanians, Ukrainians, and English as
 * the common second language. Lawyers in the big cities and those who consult by video serve them
 * most, so they speak their languages more often. Drawn from a hash of the lawyer's id, not the
 * seeded stream, so every other value of a seed is unchanged (docs/operations.md#demo-data).
 */
const COMMUNITY_LANGUAGES: ReadonlyArray<readonly [code: string, probability: number]> = [
  ['ar', 0.2],
  ['fr', 0.16],
  ['ro', 0.1],
  ['uk', 0.08],
  ['en', 0.3],
];
/** A big city: where most immigrants live (Madrid, Barcelona, Valencia, Sevilla, Zaragoza, Málaga, Murcia…). */
const BIG_CITY_POPULATION = 400_000;

// Fixed-date national holidays (día/mes); regional and Easter holidays are left to lawyers' own closures.
const NATIONAL_HOLIDAYS = new Set(['01-01', '01-06', '05-01', '08-15', '10-12', '11-01', '12-06', '12-08', '12-25']);
const EXCEPTION_WINDOW_DAYS = 60;
const REVIEW_WINDOW_SECONDS = 3 * 365 * 86_400;

type Slot = 30 | 60;
type WeeklyHours = LawyerRecord['weekly_hours'][number];
type DateException = NonNullable<LawyerRecord['date_exceptions']>[number];
type Review = NonNullable<LawyerRecord['reviews']>[number];
type PracticeArea = LawyerRecord['practice_areas'][number];
type BarMembership = LawyerRecord['bar_memberships'][number];

function parseReferenceDate(value: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match) {
    const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    // Date.UTC rolls 2025-02-30 over into March; round-tripping catches impossible dates.
    if (new Date(ms).toISOString().slice(0, 10) === value) return ms;
  }
  throw new RangeError(`referenceDate must be a real calendar date as YYYY-MM-DD, got ${JSON.stringify(value)}`);
}

/* ---------- per-lawyer pieces ---------- */

function makeName(rng: Rng, bg: NameBackground, female: boolean): { name: string; firstName: string } {
  const given = rng.chance(bg.spanishGivenChance)
    ? rng.pick(female ? SPANISH_FEMALE_NAMES : SPANISH_MALE_NAMES)
    : rng.pick(female ? bg.female : bg.male);
  let surnames: string;
  if (bg.surnameStyle === 'double') {
    const first = rng.pick(bg.surnames);
    let second = rng.pick(bg.surnames);
    // "García García" exists, but one redraw keeps it as rare as it is in practice.
    if (second === first) second = rng.pick(bg.surnames);
    surnames = `${first} ${second}`;
  } else {
    const index = rng.int(0, bg.surnames.length - 1);
    surnames = (female && bg.femaleSurnames ? bg.femaleSurnames[index] : bg.surnames[index]) ?? '';
    if (bg.surnameStyle === 'mixed' && rng.chance(0.35)) surnames += ` ${rng.pick(SPANISH_SURNAMES)}`;
  }
  return { name: `${given} ${surnames}`, firstName: given };
}

function makeFee(rng: Rng): number {
  const u = rng.next();
  if (u < 0.08) return rng.int(6, 9) * 500; // 30–45 €: legal-aid-minded and first-consultation offers
  if (u < 0.82) return rng.int(10, 24) * 500; // 50–120 €: the bulk of the market
  return 12_500 + Math.floor(rng.next() ** 2 * 26) * 500; // 125–250 €, thinning out towards the top
}

function makeLanguages(rng: Rng, bg: NameBackground, community: string): string[] {
  const languages = ['es'];
  const add = (code: string): void => {
    if (!languages.includes(code)) languages.push(code);
  };
  for (const [code, p] of bg.languages) if (rng.chance(p)) add(code);
  const regional = REGIONAL_LANGUAGE[community];
  if (regional && rng.chance(bg.key === 'spanish' ? regional[1] : regional[1] / 2)) add(regional[0]);
  if (rng.chance(0.03)) add(rng.pick(OCCASIONAL_LANGUAGES));
  return languages;
}

function makePracticeAreas(rng: Rng): PracticeArea[] {
  const u = rng.next();
  const count = u < 0.15 ? 1 : u < 0.45 ? 2 : u < 0.75 ? 3 : u < 0.9 ? 4 : 5;
  const primaryTop = pickTopArea(rng);
  const drawFrom = (top: PracticeAreaData, topLevelChance: number): string =>
    top.children && top.children.length > 0 && !rng.chance(topLevelChance) ? rng.pick(top.children).slug : top.slug;

  const slugs = [drawFrom(primaryTop, 0.06)];
  for (let attempt = 0; slugs.length < count && attempt < 20; attempt++) {
    const slug = drawFrom(rng.chance(0.55) ? primaryTop : pickTopArea(rng), 0.08);
    if (!slugs.includes(slug)) slugs.push(slug);
  }
  const areas: PracticeArea[] = slugs.map((slug, i) => ({ slug, is_primary: i === 0 }));
  // Import files do not always list the primary area first; consumers must not rely on position.
  if (areas.length > 1 && rng.chance(0.3)) {
    const j = rng.int(1, areas.length - 1);
    [areas[0], areas[j]] = [areas[j]!, areas[0]!];
  }
  return areas;
}

function makeBars(rng: Rng, province: ProvinceData, lawyerVerified: boolean): BarMembership[] {
  const bars = province.bars;
  // The provincial-capital bar is by far the largest; smaller district bars get the rest.
  const home = bars.length === 1 || rng.chance(0.7) ? bars[0]! : rng.pick(bars.slice(1));
  const verifiedChance = lawyerVerified ? 0.96 : 0.4;
  const memberships: BarMembership[] = [{ bar_name: home, verified: rng.chance(verifiedChance) }];
  if (rng.chance(0.12)) {
    // Second memberships are mostly Madrid (national courts, the Audiencia Nacional) or a neighbour.
    const other = rng.chance(0.4) ? provinceByCode.get('28')! : rng.pick(PROVINCES);
    const bar = other.bars[0]!;
    if (bar !== home) memberships.push({ bar_name: bar, verified: rng.chance(verifiedChance * 0.9) });
  }
  return memberships;
}

const PART_TIME_DAYS: readonly (readonly number[])[] = [[1, 3, 5], [2, 4], [1, 2, 3], [3, 4, 5], [1, 2, 3, 4], [2, 3, 4]];
const MORNINGS: ReadonlyArray<readonly [string, string]> = [['09:00:00', '14:00:00'], ['09:30:00', '13:30:00'], ['10:00:00', '14:00:00']];
const AFTERNOONS: ReadonlyArray<readonly [string, string]> = [['16:00:00', '19:00:00'], ['16:30:00', '19:30:00'], ['17:00:00', '20:00:00']];
const CONTINUOUS: ReadonlyArray<readonly [string, string]> = [
  ['09:00:00', '15:00:00'],
  ['10:00:00', '18:00:00'],
  ['08:00:00', '15:00:00'],
  ['09:00:00', '17:00:00'],
];

function makeWeeklyHours(rng: Rng, slot: Slot): WeeklyHours[] {
  const days = rng.chance(0.12) ? rng.pick(PART_TIME_DAYS) : [1, 2, 3, 4, 5];
  const hours: WeeklyHours[] = [];
  const block = (weekday: number, [start_time, end_time]: readonly [string, string], slot_minutes: Slot): void => {
    hours.push({ weekday, start_time, end_time, slot_minutes });
  };
  if (rng.chance(0.45)) {
    // Jornada partida, often with the Friday afternoon off (viernes intensivo).
    const morning = rng.pick(MORNINGS);
    const afternoon = rng.pick(AFTERNOONS);
    const fridayMorningOnly = rng.chance(0.5);
    for (const day of days) {
      block(day, morning, slot);
      if (!(day === 5 && fridayMorningOnly)) block(day, afternoon, slot);
    }
  } else {
    const span = rng.pick(CONTINUOUS);
    for (const day of days) block(day, span, slot);
  }
  if (rng.chance(0.12)) {
    const saturdaySlot: Slot = rng.chance(0.1) ? (slot === 60 ? 30 : 60) : slot;
    block(6, rng.chance(0.7) ? ['10:00:00', '13:00:00'] : ['10:00:00', '14:00:00'], saturdaySlot);
  }
  return hours;
}

interface DateWindow {
  /** YYYY-MM-DD for referenceDate + i days, i = 0..EXCEPTION_WINDOW_DAYS. */
  dates: readonly string[];
  holidayOffsets: readonly number[];
}

function makeDateWindow(referenceMs: number): DateWindow {
  const dates: string[] = [];
  const holidayOffsets: number[] = [];
  for (let i = 0; i <= EXCEPTION_WINDOW_DAYS; i++) {
    const date = new Date(referenceMs + i * 86_400_000).toISOString().slice(0, 10);
    dates.push(date);
    if (i > 0 && NATIONAL_HOLIDAYS.has(date.slice(5))) holidayOffsets.push(i);
  }
  return { dates, holidayOffsets };
}

function makeDateExceptions(rng: Rng, window: DateWindow, slot: Slot): DateException[] {
  const byOffset = new Map<number, DateException>();
  const close = (offset: number): void => {
    if (offset >= 1 && offset <= EXCEPTION_WINDOW_DAYS && !byOffset.has(offset)) {
      byOffset.set(offset, { date: window.dates[offset]! });
    }
  };
  if (rng.chance(0.85)) for (const offset of window.holidayOffsets) close(offset);
  if (rng.chance(0.2)) {
    const start = rng.int(3, 50);
    const length = rng.int(5, 10);
    for (let i = 0; i < length; i++) close(start + i);
  }
  const extraClosed = rng.int(0, 2);
  for (let i = 0; i < extraClosed; i++) close(rng.int(1, EXCEPTION_WINDOW_DAYS));
  if (rng.chance(0.1)) {
    const offset = rng.int(1, EXCEPTION_WINDOW_DAYS);
    if (!byOffset.has(offset)) {
      const [start_time, end_time] = rng.chance(0.5) ? ['10:00:00', '13:00:00'] : ['16:00:00', '20:00:00'];
      byOffset.set(offset, { date: window.dates[offset]!, start_time, end_time, slot_minutes: slot });
    }
  }
  return [...byOffset.keys()].sort((x, y) => x - y).map((offset) => byOffset.get(offset)!);
}

function commentFor(rng: Rng, rating: number, female: boolean): string {
  let pool: readonly string[];
  if (rating >= 5) pool = POSITIVE_COMMENTS;
  else if (rating === 4) pool = rng.chance(0.85) ? POSITIVE_COMMENTS : MIXED_COMMENTS;
  else if (rating === 3) pool = MIXED_COMMENTS;
  else pool = NEGATIVE_COMMENTS;
  return genderize(rng.pick(pool), female);
}

function makeReviews(rng: Rng, isNew: boolean, female: boolean, referenceMs: number): Review[] {
  let count: number;
  if (isNew) count = rng.chance(0.6) ? 0 : rng.int(1, 3);
  else if (rng.chance(0.1)) count = 0;
  // Exponential tail: most lawyers have a handful, a few established ones hit the cap.
  else count = Math.min(40, 1 + Math.floor(-Math.log(1 - rng.next()) * 7));

  // Each lawyer has a typical rating; individual reviews scatter around it.
  const quality = 3.45 + 1.6 * rng.next() ** 0.55;
  const reviews: Review[] = [];
  for (let i = 0; i < count; i++) {
    const rating = rng.chance(0.03)
      ? rng.int(1, 2)
      : Math.max(1, Math.min(5, Math.round(quality + (rng.next() + rng.next() - 1) * 1.5)));
    const comment = rng.chance(0.6) ? commentFor(rng, rating, female) : null;
    const date = rng.chance(0.03)
      ? null
      : new Date(referenceMs - (1 + Math.floor(rng.next() * REVIEW_WINDOW_SECONDS)) * 1000).toISOString().slice(0, 19) + 'Z';
    reviews.push({ rating, comment, date, verified_client: rng.chance(0.95) });
  }
  // Newest first, undated legacy reviews last, as an export from a review system would list them.
  reviews.sort((x, y) => (x.date === y.date ? 0 : x.date == null ? 1 : y.date == null ? -1 : x.date < y.date ? 1 : -1));
  return reviews;
}

function makeBio(rng: Rng, context: BioContext, languageCount: number): string {
  const sentences = [rng.pick(BIO_OPENERS)(context), rng.pick(BIO_FOCUS)(context)];
  if (rng.chance(languageCount > 1 ? 0.75 : 0.25)) sentences.push(rng.pick(BIO_LANGUAGES)(context));
  if (rng.chance(0.65)) sentences.push(rng.pick(BIO_CLOSERS)(context));
  let bio = sentences.join(' ');
  // About 1 in 200 bios carries an injection attempt, sometimes tucked after a normal profile.
  if (rng.chance(0.005)) {
    const attack = rng.pick(ADVERSARIAL_BIO_SNIPPETS);
    bio = rng.chance(0.5) ? `${bio} ${attack}` : attack;
  }
  return bio;
}

/**
 * A demo lawyer's contact address, under a domain reserved for examples (RFC 2606), so demo
 * notices can never reach a real mailbox. Derived from the name and id, not drawn from the
 * random stream: adding it left every other generated value as it was.
 */
export function demoContactEmail(name: string, id: string): string {
  const words = name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return `${words.slice(0, 2).join('.') || 'despacho'}.${id.slice(0, 4)}@despacho.example`;
}

/** FNV-1a of a string: per-lawyer details drawn without consuming the main stream, so adding them kept every earlier field as it was. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The lawyers' side of a demo lawyer (docs/lawyers.md): a membership number per colegio, and her
 * consultation — its length is her hours' slot length; formats video (a reserved example.com
 * meeting link), phone and in person (an office address in her city), at least one.
 */
export function demoOffer(id: string, cityName: string, slot: number, memberships: ReadonlyArray<{ bar_name: string }>): Pick<LawyerRecord, 'consultation_minutes' | 'formats'> & { numbers: string[] } {
  const h = hashOf(id);
  const video = h % 10 < 7;
  const inPerson = (h >>> 4) % 10 < 5;
  const phone = (h >>> 8) % 10 < 6 || (!video && !inPerson);
  const street = ['Calle Mayor', 'Avenida de la Constitución', 'Plaza de España', 'Calle Real', 'Paseo del Prado'][(h >>> 12) % 5]!;
  return {
    consultation_minutes: slot === 30 ? 30 : 60,
    formats: {
      ...(video ? { video_url: `https://meet.example.com/consulta-${id.slice(0, 8)}` } : {}),
      phone,
      ...(inPerson ? { office_address: `${street} ${1 + ((h >>> 16) % 120)}, ${cityName}` } : {}),
    },
    numbers: memberships.map((m) => String(1000 + (hashOf(`${id} ${m.bar_name}`) % 98_000))),
  };
}

/* ---------- the stream ---------- */

/** Deterministic: same options → identical records (deep-equal), in the same order. Lazily yields so 100,000 lawyers never sit in memory at once. */
export function* generateLawyers(options: GenerateOptions): Generator<LawyerRecord> {
  const { seed, count, referenceDate } = options;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const referenceMs = parseReferenceDate(referenceDate);
  const referenceYear = new Date(referenceMs).getUTCFullYear();
  const window = makeDateWindow(referenceMs);
  const rng = createRng(seed);

  for (let i = 0; i < count; i++) {
    const id = rng.uuid();
    const background = pickBackground(rng);
    // Women are now the majority of practising lawyers in Spain.
    const female = rng.chance(0.56);
    const { name, firstName } = makeName(rng, background, female);
    const city = pickCity(rng);
    const province = provinceByCode.get(city.province_code)!;
    const verified = rng.chance(0.93);
    const listed = rng.chance(0.95);
    const years = 2 + Math.floor(rng.next() ** 1.3 * 36);
    const consultationFee = makeFee(rng);
    const commission = rng.chance(0.6) ? rng.int(12, 15) : rng.int(8, 20);
    const languages = makeLanguages(rng, background, province.autonomous_community);
    const practiceAreas = makePracticeAreas(rng);
    const barMemberships = makeBars(rng, province, verified);
    const slot: Slot = rng.chance(0.6) ? 60 : 30;
    // Pure (a hash of the id): computed here so the languages can follow the formats.
    const offer = demoOffer(id, city.name, slot, barMemberships);
    // The bio's draws depend on this count: the one before the community languages keeps the stream.
    const drawnLanguages = languages.length;
    if (city.population >= BIG_CITY_POPULATION || offer.formats?.video_url) {
      for (const [code, p] of COMMUNITY_LANGUAGES) if (!languages.includes(code) && hashOf(`${id} speaks ${code}`) % 1000 < p * 1000) languages.push(code);
    }
    const neverAvailable = rng.chance(0.02);
    const weeklyHours = neverAvailable ? [] : makeWeeklyHours(rng, slot);
    const dateExceptions = neverAvailable ? [] : makeDateExceptions(rng, window, slot);
    const isNew = rng.chance(0.1);
    const reviews = makeReviews(rng, isNew, female, referenceMs);
    // No booking count: the writer computes total_bookings from the review rows (docs/reviews.md#aggregates).
    // The draw stays, so every later value of a seed is unchanged.
    if (!isNew) {
      rng.next();
      rng.int(0, 8);
    }

    let bio: string | null = null;
    if (rng.chance(0.85)) {
      const primary = practiceAreas.find((a) => a.is_primary)!;
      const others = practiceAreas.filter((a) => a !== primary).slice(0, 2);
      bio = makeBio(
        rng,
        {
          name,
          firstName,
          city: city.name,
          province: province.name,
          years,
          since: referenceYear - years,
          bar: barMemberships[0]!.bar_name,
          areas: [primary, ...others].map((a) => areaPhrase.get(a.slug) ?? a.slug),
          languages: languages.map((code) => languageByCode(code)?.name ?? code),
          countries: rng.int(8, 60),
        },
        drawnLanguages,
      );
    }

    yield {
      id,
      name,
      city: city.slug,
      consultation_fee_cents: consultationFee,
      platform_commission_percent: commission,
      bio,
      contact_email: demoContactEmail(name, id),
      verified,
      listed,
      languages,
      practice_areas: practiceAreas,
      bar_memberships: barMemberships.map((m, j) => ({ ...m, membership_number: offer.numbers[j]! })),
      weekly_hours: weeklyHours,
      date_exceptions: dateExceptions,
      reviews,
      consultation_minutes: offer.consultation_minutes,
      formats: offer.formats,
    };
  }
}
