/** GET /: the search form and its results, through the same DirectoryService as the API. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { SearchQuerySchema, type SearchQuery, type SearchResponse } from '../../contract/directory.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import type { TrustService } from '../../domain/directory/trust.service.ts';
import { DomainError } from '../../domain/errors.ts';
import type { PracticeAreaNode, ReferenceData } from '../../domain/directory/reference.service.ts';
import type { Locale, Messages } from '../../i18n/index.ts';
import { capitalized, languageName, practiceAreaName } from '../../i18n/reference.ts';
import { createAjv, toFieldErrors } from '../../domain/validation.ts';
import { suggestPracticeAreas } from '../../domain/directory/practice-area-suggest.ts';
import { HomePage, NEED_MAX_CHARS, type NeedAnswer, type SearchFormValues } from './home.page.tsx';
import type { PersonLanguagesService } from '../../domain/people/person-languages.service.ts';

// Languages people search for most (the lawyers' languages are ISO codes); names in the page's language.
const COMMON_LANGUAGES = ['es', 'en', 'ar', 'fr', 'ro', 'uk', 'ru', 'zh', 'pt', 'de', 'it', 'ur', 'bn', 'hi', 'wo', 'tl'];

const SEARCH_FIELDS = ['city', 'practice_area', 'language', 'min_fee_eur', 'max_fee_eur', 'sort', 'page', 'include_remote'] as const;

/** The practice-area tree as select options in the page's language, children indented under their parent. */
function flattenAreas(nodes: readonly PracticeAreaNode[], depth: number, locale: Locale): Array<{ value: string; label: string }> {
  return nodes.flatMap((n) => [{ value: n.slug, label: `${'— '.repeat(depth)}${practiceAreaName(locale, n.slug, n.name)}` }, ...flattenAreas(n.children, depth + 1, locale)]);
}

type Option = { value: string; label: string };
type Lists = { cities: Option[]; areas: Option[]; languages: Option[]; slugs: ReadonlySet<string> };
const listCache = new WeakMap<ReferenceData, Map<Locale, Lists>>();

/** The form's select options for a directory version and language (sorted once, then reused). */
function lists(ref: ReferenceData, locale: Locale): Lists {
  let byLocale = listCache.get(ref);
  if (!byLocale) listCache.set(ref, (byLocale = new Map()));
  let out = byLocale.get(locale);
  if (!out) {
    const collator = new Intl.Collator(locale);
    const byName = (a: Option, b: Option) => collator.compare(a.label, b.label);
    out = {
      cities: ref.cities.filter((c) => c.lawyer_count > 0).map((c) => ({ value: c.slug, label: c.name })).sort(byName),
      areas: flattenAreas(ref.practiceAreaTree, 0, locale),
      slugs: new Set(flattenAreas(ref.practiceAreaTree, 0, locale).map((a) => a.value)),
      languages: COMMON_LANGUAGES.map((code) => ({ value: code, label: capitalized(locale, languageName(locale, code)) })).sort(byName),
    };
    byLocale.set(locale, out);
  }
  return out;
}

/** The results part of the page, with links to the previous and next pages of the same search. */
function resultsOf(r: SearchResponse, query: Record<string, unknown>, ref: ReferenceData) {
  const params = Object.fromEntries(Object.entries(query).filter(([k]) => k !== 'limit' && k !== 'page' && k !== 'languages').map(([k, v]) => [k, String(v)]));
  const link = (page: number) => `/?${new URLSearchParams({ ...params, page: String(page) })}`;
  const citySlug = typeof query.city === 'string' ? ref.resolveCity(query.city) : undefined;
  return {
    total: r.total,
    page: r.page,
    hasMore: r.has_more,
    lawyers: r.lawyers,
    prev: r.page > 1 ? link(r.page - 1) : null,
    next: r.has_more ? link(r.page + 1) : null,
    // The same search with lawyers from elsewhere by video or phone, when that finds more.
    withRemote: r.remote_available ? { count: r.remote_available, href: `/?${new URLSearchParams({ ...params, include_remote: 'true' })}` } : null,
    languagesMatched: r.languages_matched ?? null,
    person: typeof query.languages === 'string' ? query.languages.split(',') : [],
    citySlug: citySlug ?? null,
  };
}


/**
 * The "what do you need help with" answer: the practice areas the text is about, by the same
 * function the MCP tool `suggest_practice_areas` uses, named in the page's language, each a link
 * to the search filtered by it.
 */
function needOf(raw: unknown, ref: ReferenceData, locale: Locale): NeedAnswer | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const whole = raw.trim();
  const text = whole.slice(0, NEED_MAX_CHARS);
  const { slugs } = lists(ref, locale);
  const names = new Map(lists(ref, locale).areas.map((a) => [a.value, a.label.replace(/^(— )+/, '')]));
  const suggestions = suggestPracticeAreas(text, slugs, 3).map((s) => ({ slug: s.slug, name: names.get(s.slug) ?? s.slug, href: `/?${new URLSearchParams({ practice_area: s.slug })}` }));
  return { text, truncated: whole.length > NEED_MAX_CHARS, suggestions };
}

/**
 * The rendered page's cache key: the search answer and its cards' availability answers, which
 * the directory hands out again (the same objects) while unchanged; a new key when any changed.
 */
const keys = new WeakMap<SearchResponse, { parts: ReadonlyArray<object | null>; key: object }>();
function pageKey(answer: SearchResponse, parts: ReadonlyArray<object | null>): object {
  const known = keys.get(answer);
  if (known && known.parts.length === parts.length && known.parts.every((p, i) => p === parts[i])) return known.key;
  const key = {};
  keys.set(answer, { parts, key });
  return key;
}

export function homeArea(directory: DirectoryService, trustService: TrustService, people: PersonLanguagesService) {
  const validate = createAjv({ strict: false }).compile<SearchQuery>(SearchQuerySchema);
  return async (site: FastifyInstance) => {
    site.get('/', { schema: { hide: true } }, async (request, reply) => {
      const ctx = request.site;
      const raw = request.query as Record<string, unknown>;
      // Empty fields of a submitted form mean "any".
      const query: Record<string, unknown> = { limit: 10 };
      for (const f of SEARCH_FIELDS) {
        // The remote checkbox follows a hidden "false": checked, both arrive and the last one counts.
        const v = Array.isArray(raw[f]) ? (raw[f] as unknown[]).at(-1) : raw[f];
        if (typeof v === 'string' && v.trim() !== '') query[f] = v.trim();
      }
      const searched = SEARCH_FIELDS.some((f) => f in query);
      // On the site, video and phone consultations are national unless the person unticks it
      // (the API keeps `city` to the city by default: docs/lawyers.md#online-from-anywhere-in-spain).
      if (query.include_remote === undefined) query.include_remote = 'true';
      // The person's languages rank the results (their account's, else the site language).
      const person = await people.forVisitor(ctx.user?.id ?? null, ctx.locale);
      if (person.length > 0) query.languages = person.join(',');
      const errors: Record<string, string> = {};
      let answer: SearchResponse | null = null;
      if (searched) {
        if (!validate(query)) {
          for (const e of toFieldErrors(validate.errors ?? [], '')) errors[e.pointer.slice(1)] = fieldMessage(ctx.t, e.pointer.slice(1));
        } else {
          try {
            answer = await directory.search(query as SearchQuery);
          } catch (err) {
            if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
            for (const e of err.errors ?? []) errors[e.pointer.split('/').pop() ?? ''] = fieldMessage(ctx.t, e.pointer.split('/').pop() ?? '');
          }
        }
      }
      const ref = await directory.reference();
      const values = query as SearchFormValues;
      const results = answer ? resultsOf(answer, query, ref) : null;
      const need = needOf(raw.q, ref, ctx.locale);
      // Each card's first three free times, from the directory's availability cache.
      const free = answer ? await Promise.all(answer.lawyers.map((l) => directory.firstFreeSlots(l.id, l.next_available, 3))) : [];
      const times = new Map(free.filter((a) => a !== null).map((a) => [a.lawyer_id, a]));
      // Badges, photos, lengths and formats of the whole page at once (cached per lawyer, never a query per card).
      const trust = answer ? await trustService.forLawyers(answer.lawyers.map((l) => l.id)) : new Map<string, never>();
      const trustParts = answer ? answer.lawyers.map((l) => trust.get(l.id) ?? null) : [];
      if (Object.keys(errors).length > 0) return reply.page(h(HomePage, { ctx, values, errors, ...lists(ref, ctx.locale), results, need, times, trust, once: randomBytes(12).toString('base64url') }), 400);
      // Free text is not cached: any text makes its own URL, and would push real pages out.
      if (need) return reply.page(h(HomePage, { ctx, values, errors, ...lists(ref, ctx.locale), results, need, times, trust, once: randomBytes(12).toString('base64url') }));
      const key = answer ? pageKey(answer, [...free, ...trustParts]) : ref;
      return reply.cachedPage(key, (c, once) => h(HomePage, { ctx: c, values, errors, ...lists(ref, c.locale), results, need: null, times, trust, once }));
    });
  };
}

/**
 * What to do about a search field the directory refused: the price says what it takes (a person who
 * typed "-5" or "80,5€" was told only "Check this value"), a list says to choose from it.
 */
function fieldMessage(t: Messages, field: string): string {
  if (field === 'max_fee_eur') return t.home.invalidFee;
  if (field === 'city' || field === 'practice_area' || field === 'language' || field === 'sort') return t.home.invalidChoice;
  return t.home.invalidField;
}
