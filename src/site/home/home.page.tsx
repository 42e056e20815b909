/** The home page: a search form over the directory, and its results. */
import type { ComponentChildren } from 'preact';
import type { AvailabilityResponse, LawyerSummary } from '../../contract/directory.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm, Select, euros } from '../ui/components.tsx';
import { colon, comma, formatDay, formatTime } from '../../i18n/format.ts';
import { languageName, listOf, practiceAreaName } from '../../i18n/reference.ts';
import type { LawyerTrust } from '../../domain/directory/trust.service.ts';
import { Layout } from '../ui/layout.tsx';
import { Avatar, OfferFacts, ratingWithCount, VerifiedBadge } from '../lawyers/trust.tsx';
import { anyOf, CardMatch } from '../lawyers/language-match.tsx';

/** Every lawyer in Spain speaks Spanish: a "speaks Spanish" mark on every card would say nothing. */
const shown = (codes: readonly string[]) => codes.filter((c) => c !== 'es');

const shortDays = new Map<string, string>();
/** `2026-11-30` → "lun 30" / "Mon 30": a time button's day, short enough for three buttons on a phone. */
function formatShortDay(date: string, locale: string): string {
  const id = `${locale}|${date}`;
  let out = shortDays.get(id);
  if (out === undefined) {
    // Weekday, then day, in every language ("Thu 26", "jue 26"): Intl alone gives "26 Thu" in English.
    const parts = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', timeZone: 'UTC' }).formatToParts(new Date(`${date}T12:00:00Z`));
    out = `${parts.find((p) => p.type === 'weekday')?.value ?? ''} ${parts.find((p) => p.type === 'day')?.value ?? ''}`.trim();
    if (shortDays.size >= 2000) shortDays.clear();
    shortDays.set(id, out);
  }
  return out;
}

/** How much of the free text is read (and shown back): a sentence or two, never a whole page. */
export const NEED_MAX_CHARS = 200;

export interface SearchFormValues {
  city?: string;
  practice_area?: string;
  language?: string;
  max_fee_eur?: string | number;
  sort?: string;
  include_remote?: boolean | string;
}

/** What the free-text field answered: the text read, and the practice areas it suggests. */
export interface NeedAnswer {
  text: string;
  truncated: boolean;
  suggestions: ReadonlyArray<{ slug: string; name: string; href: string }>;
}

export interface HomePageProps {
  ctx: SiteContext;
  values: SearchFormValues;
  errors: Record<string, string>;
  cities: ReadonlyArray<{ value: string; label: string }>;
  areas: ReadonlyArray<{ value: string; label: string }>;
  languages: ReadonlyArray<{ value: string; label: string }>;
  /** Null before a search was made (or when the form has errors). */
  /** This rendering's nonce (the holds' Idempotency-Key), from cachedPage. */
  once?: string;
  /** Each result's first free times, by lawyer id (absent: none soon). */
  times?: ReadonlyMap<string, AvailabilityResponse>;
  /** The free-text answer, when the person described their situation. */
  need?: NeedAnswer | null;
  /** Each result's badge facts, photo, length and formats, by lawyer id (TrustService, batched). */
  trust?: ReadonlyMap<string, LawyerTrust>;
  results: {
    total: number;
    page: number;
    hasMore: boolean;
    lawyers: readonly LawyerSummary[];
    prev: string | null;
    next: string | null;
    /** The same search with lawyers from elsewhere by video or phone, when it finds more. */
    withRemote?: { count: number; href: string } | null;
    /** How many results speak one of the person's languages (they come first). */
    languagesMatched?: number | null;
    /** The person's languages the results were ranked by. */
    person?: readonly string[];
    citySlug?: string | null;
  } | null;
}

export function HomePage({ ctx, values, errors, cities, areas, languages, results, need, times, once, trust }: HomePageProps) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.home.title} section="search">
      <h1>{t.home.heading}</h1>
      {results ? null : <p>{t.home.intro}</p>}
      {/* A search with a bad value says so first, above the form (on a phone the form is a screen long). */}
      {Object.keys(errors).length > 0 ? (
        <Notice kind="bad" role="alert">
          <p>{t.home.fixErrors}</p>
        </Notice>
      ) : null}
      {results ? null : <NeedForm ctx={ctx} need={need ?? null} />}
      <Collapsed when={results !== null} summary={filterSummary(ctx, values, { cities, areas, languages })}>
      <form method="get" action="/" role="search" aria-label={t.home.formLabel}>
        <div class="grid four">
          <Select name="city" label={t.home.city} options={cities} value={values.city} empty={t.home.anyCity} error={errors.city} />
          <Select name="practice_area" label={t.home.area} options={areas} value={values.practice_area} empty={t.home.anyArea} error={errors.practice_area} />
          <Select name="language" label={t.home.language} options={languages} value={values.language} empty={t.home.anyLanguage} error={errors.language} />
          <Field name="max_fee_eur" label={t.home.maxFee} type="number" inputmode="numeric" min={0} max={100000} step="1" value={values.max_fee_eur ?? ''} error={errors.max_fee_eur} autofocus={Boolean(errors.max_fee_eur)} />
        </div>
        <RemoteChoice ctx={ctx} checked={values.include_remote !== false && values.include_remote !== 'false'} />
        <div class="actions">
          <Select
            name="sort"
            label={t.home.sort}
            value={values.sort}
            options={[
              { value: 'rating', label: t.home.sortRating },
              { value: 'price_asc', label: t.home.sortPriceAsc },
              { value: 'price_desc', label: t.home.sortPriceDesc },
              { value: 'reviews', label: t.home.sortReviews },
            ]}
          />
          <button type="submit">{t.home.search}</button>
        </div>
      </form>
      </Collapsed>
      {results ? <Results ctx={ctx} results={results} times={times ?? new Map()} once={once ?? ''} trust={trust ?? new Map()} /> : null}
    </Layout>
  );
}

/**
 * A card's first free times as buttons that hold directly: the same POST as the free-times page
 * (CSRF token, and the page's nonce as the hold's Idempotency-Key), so no JavaScript is needed.
 */
function FirstTimes({ ctx, availability: a, once }: { ctx: SiteContext; availability: AvailabilityResponse | undefined; once: string }) {
  const { t } = ctx;
  if (!a || a.slots.length === 0) return null;
  return (
    <PostForm ctx={ctx} action={`/lawyers/${a.lawyer_id}/book`} class="first-times" once>
      <input type="hidden" name="nonce" value={once} />
      <p class="meta" id={`ft-${a.lawyer_id}`}>
        {t.home.firstTimes}
      </p>
      <ul class="times" aria-labelledby={`ft-${a.lawyer_id}`}>
        {a.slots.map((s) => (
          <li>
            <button type="submit" name="slot" value={`${s.date}|${s.start_time}|${s.end_time}`} class="secondary" aria-label={`${formatShortDay(s.date, ctx.locale)} ${formatTime(s.start_time)}: ${t.book.holdLabel(formatDay(s.date, ctx.locale), formatTime(s.start_time))}`}>
              {formatShortDay(s.date, ctx.locale)} {formatTime(s.start_time)}
            </button>
          </li>
        ))}
      </ul>
    </PostForm>
  );
}

/**
 * After a search the results are what a phone shows first: the filters fold into one line that
 * says what was searched (a <details>, so no JavaScript), and open again with a tap.
 */
function Collapsed({ when, summary, children }: { when: boolean; summary: string; children: ComponentChildren }) {
  if (!when) return <>{children}</>;
  return (
    <details class="search-filters">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** "Change search: Madrid · Family reunification · Arabic · up to €100" in the page's language. */
function filterSummary(ctx: SiteContext, values: SearchFormValues, lists: Pick<HomePageProps, 'cities' | 'areas' | 'languages'>): string {
  const label = (options: HomePageProps['cities'], value: string | undefined) => (value ? (options.find((o) => o.value === value)?.label.replace(/^(— )+/, '') ?? value) : null);
  const fee = values.max_fee_eur !== undefined && values.max_fee_eur !== '' && Number.isFinite(Number(values.max_fee_eur)) ? `≤ ${euros(Number(values.max_fee_eur) * 100, ctx.locale)}` : null;
  const parts = [label(lists.cities, values.city), label(lists.areas, values.practice_area), label(lists.languages, values.language), fee].filter((p): p is string => p !== null);
  return `${ctx.t.home.filtersSummary}${colon(ctx.locale)}${parts.length > 0 ? parts.join(' · ') : ctx.t.home.anyFilter}`;
}

/** "What do you need help with": a GET form, so it works without JavaScript; its suggestions are links to a filtered search. */
function NeedForm({ ctx, need }: { ctx: SiteContext; need: NeedAnswer | null }) {
  const { t } = ctx;
  return (
    <section class="need" aria-labelledby="need-heading">
      <h2 id="need-heading">{t.home.need}</h2>
      <form method="get" action="/" class="need-form">
        <Field name="q" label={t.home.needLabel} hint={t.home.needHint} value={need?.text ?? ''} maxLength={NEED_MAX_CHARS} autocomplete="off" />
        <button type="submit">{t.home.suggest}</button>
      </form>
      {need ? (
        <div class="suggestions" role="status">
          <h3>{t.home.suggestionsFor(need.text)}</h3>
          {need.truncated ? <p class="meta">{t.home.needTooLong(NEED_MAX_CHARS)}</p> : null}
          {need.suggestions.length > 0 ? (
            <>
              <p>{t.home.suggestionsIntro}</p>
              <ul class="suggestion-list">
                {need.suggestions.map((s) => (
                  <li>
                    <a class="button secondary" href={s.href}>
                      {s.name}
                    </a>
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p>{t.home.noSuggestion}</p>
          )}
        </div>
      ) : null}
    </section>
  );
}

/**
 * "Also lawyers from anywhere in Spain by video or phone": on by default. Without JavaScript an
 * unticked box sends nothing, so a hidden "false" comes first and a ticked box's "true" after it wins.
 */
function RemoteChoice({ ctx, checked }: { ctx: SiteContext; checked: boolean }) {
  const m = ctx.t.languageMatch;
  return (
    <div class="field check">
      <input type="hidden" name="include_remote" value="false" />
      <label>
        <input type="checkbox" name="include_remote" value="true" checked={checked} aria-describedby="f-include_remote-hint" /> <span>{m.includeRemote}</span>
      </label>
      <span class="hint" id="f-include_remote-hint">
        {m.includeRemoteHint}
      </span>
    </div>
  );
}

function Results({ ctx, results, times, once, trust }: { ctx: SiteContext; results: NonNullable<HomePageProps['results']>; times: ReadonlyMap<string, AvailabilityResponse>; once: string; trust: ReadonlyMap<string, LawyerTrust> }) {
  const { t } = ctx;
  return (
    <section aria-labelledby="results-heading">
      <h2 id="results-heading">{t.home.resultsCount(results.total)}</h2>
      {results.lawyers.length === 0 ? <p>{t.home.noResults}</p> : null}
      {results.withRemote ? (
        <p class="more-remote">
          <a href={results.withRemote.href}>{t.languageMatch.moreWithRemote(results.withRemote.count)}</a>
        </p>
      ) : null}
      {results.languagesMatched && shown(results.person ?? []).length > 0 ? <p class="meta">{t.languageMatch.rankedByLanguage(anyOf(ctx.locale, shown(results.person ?? [])))}</p> : null}
      <ul class="cards columns">
        {results.lawyers.map((l) => (
          <li class="card lawyer-card">
            <div class="lawyer-head">
              <Avatar ctx={ctx} name={l.name} photoUrl={trust.get(l.id)?.photoUrl ?? null} size={56} />
              <div>
                <h3>
                  <a href={`/lawyers/${l.id}`}>{l.name}</a>
                </h3>
                <VerifiedBadge ctx={ctx} form={trust.get(l.id)?.formOfAddress} />
              </div>
            </div>
            <p class="meta">
              {l.city} · {l.practice_areas.map((a) => practiceAreaName(ctx.locale, a.slug, a.name)).join(comma(ctx.locale))}
            </p>
            <p class="meta">
              {t.lawyer.speaks(listOf(ctx.locale, l.languages.map((code) => languageName(ctx.locale, code))))}
              {l.average_rating !== null ? ` · ${ratingWithCount(ctx, l.average_rating, l.review_count)}` : ''}
            </p>
            <CardMatch ctx={ctx} inCommon={l.languages_in_common ? shown(l.languages_in_common) : undefined} remoteCity={l.remote ? l.city : null} />
            <OfferFacts ctx={ctx} trust={trust.get(l.id)} feeCents={l.consultation_fee_cents} />
            <p class="meta">{l.next_available ? t.lawyer.nextAvailable(formatDay(l.next_available, ctx.locale)) : t.lawyer.noneSoon}</p>
            <FirstTimes ctx={ctx} availability={times.get(l.id)} once={once} />
            <p>
              <a class="button secondary" href={`/lawyers/${l.id}/book`}>
                {t.lawyer.seeTimes}
              </a>
            </p>
          </li>
        ))}
      </ul>
      <nav class="pager" aria-label={t.home.pages}>
        {results.prev ? <a href={results.prev}>{t.home.prev}</a> : <span />}
        {results.next ? <a href={results.next}>{t.home.next}</a> : <span />}
      </nav>
    </section>
  );
}
