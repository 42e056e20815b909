/**
 * The search's plain definition in JavaScript, for the tests that hold the SQL queries and the
 * in-memory index to it: which public lawyers match a filter, and their order for each sort.
 */
import type { LawyerFilters, LawyerSort } from '../../src/db/repositories/lawyer.repository.ts';

export interface ReferenceLawyer {
  id: string;
  city_slug: string;
  consultation_fee_cents: number;
  rating_key: number;
  review_count: number;
  languages: ReadonlySet<string>;
  areas: ReadonlySet<string>;
}

/** A small deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Keys = Pick<ReferenceLawyer, 'id' | 'consultation_fee_cents' | 'rating_key' | 'review_count'>;
const byId = (a: Keys, b: Keys) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Each sort's order; ties end in id ascending (plain string order, as SQLite BINARY and PostgreSQL "C"). */
export const COMPARE: Record<LawyerSort, (a: Keys, b: Keys) => number> = {
  rating: (a, b) => b.rating_key - a.rating_key || b.review_count - a.review_count || byId(a, b),
  reviews: (a, b) => b.review_count - a.review_count || b.rating_key - a.rating_key || byId(a, b),
  price_asc: (a, b) => a.consultation_fee_cents - b.consultation_fee_cents || byId(a, b),
  price_desc: (a, b) => b.consultation_fee_cents - a.consultation_fee_cents || byId(a, b),
};

/** Whether a public lawyer matches every filter given (AND); areaSlugs are already expanded. */
export function matches(l: ReferenceLawyer, f: LawyerFilters): boolean {
  if (f.citySlug !== undefined && l.city_slug !== f.citySlug) return false;
  if (f.minFeeCents !== undefined && l.consultation_fee_cents < f.minFeeCents) return false;
  if (f.maxFeeCents !== undefined && l.consultation_fee_cents > f.maxFeeCents) return false;
  if (f.language !== undefined && !l.languages.has(f.language)) return false;
  if (f.areaSlugs !== undefined && !f.areaSlugs.some((a) => l.areas.has(a))) return false;
  return true;
}
