/**
 * What is measured: the hot read endpoints, each as a list of request paths (one fixed path, or
 * many lawyer ids rotated so consecutive requests hit different lawyers), and the targets, as
 * the share of the raw baseline's throughput the service must reach.
 */
export const API = '/api/v1';

export type ScenarioKind = 'search' | 'lawyer' | 'reference' | 'site' | 'widget';

export interface ScenarioSpec {
  name: string;
  kind: ScenarioKind;
  /** Minimum app req/s ÷ baseline req/s. */
  target: number;
  paths(ids: readonly string[], bench: BenchContext): string[];
}

/** What some scenarios need besides lawyer ids: the bench's publishable key (bench/seed.ts widgetKey). */
export interface BenchContext {
  widgetKey: string;
}

/** The origin the bench's publishable key lists: the page that embeds the widget. */
export const WIDGET_HOST = 'https://ngo.example';

const fixed = (path: string) => () => [`${API}${path}`];
const perLawyer = (suffix: string) => (ids: readonly string[]) => ids.map((id) => `${API}/lawyers/${id}${suffix}`);
const sitePerLawyer = (suffix: string) => (ids: readonly string[]) => ids.map((id) => `/lawyers/${id}${suffix}`);
/** The frame's query as embed.js writes it (key, language, embedding origin, widget id), plus `extra`. */
const frameQuery = (key: string, extra: Record<string, string> = {}) => new URLSearchParams({ k: key, lang: 'es', host: WIDGET_HOST, wid: 'bench', ...extra }).toString();

/** The four search mixes, also used for the scale check. */
export const SEARCH_SCENARIOS: ScenarioSpec[] = [
  { name: 'search: no filter', kind: 'search', target: 0.3, paths: fixed('/lawyers/search') },
  { name: 'search: city=madrid', kind: 'search', target: 0.3, paths: fixed('/lawyers/search?city=madrid') },
  { name: 'search: residence+ar', kind: 'search', target: 0.3, paths: fixed('/lawyers/search?practice_area=residence&language=ar') },
  {
    name: 'search: bcn ≤100€ price↑',
    kind: 'search',
    target: 0.3,
    paths: fixed('/lawyers/search?city=barcelona&max_fee_eur=100&sort=price_asc'),
  },
];

/**
 * Informational, scale check only: the residence+ar mix with a different fee bound on every
 * request. The bounds all lie above every fee, so the lawyers found are the same, but each is a
 * new filter for the service's per-filter count cache: this is what a first visit to a filter
 * combination costs, which the four fixed mixes (cached after their first request) never show.
 */
export const UNCACHED_COUNT_SCENARIO: ScenarioSpec = {
  name: 'search: residence+ar, uncached',
  kind: 'search',
  target: Number.NaN,
  paths: () => Array.from({ length: 5000 }, (_, i) => `${API}/lawyers/search?practice_area=residence&language=ar&max_fee_eur=${(1000 + i / 100).toFixed(2)}`),
};

export const SCENARIOS: ScenarioSpec[] = [
  ...SEARCH_SCENARIOS,
  // Issue 26: the person's languages rank the page (speakers first), and a city search may add
  // the lawyers from elsewhere who consult by video or phone (docs/lawyers.md#online-from-anywhere-in-spain).
  { name: 'search: madrid, languages=ar', kind: 'search', target: 0.3, paths: fixed('/lawyers/search?city=madrid&languages=ar') },
  { name: 'search: madrid+remote, languages=ar', kind: 'search', target: 0.3, paths: fixed('/lawyers/search?city=madrid&include_remote=true&languages=ar') },
  { name: 'profile', kind: 'lawyer', target: 0.4, paths: perLawyer('') },
  { name: 'availability', kind: 'lawyer', target: 0.4, paths: perLawyer('/availability') },
  { name: 'reviews', kind: 'lawyer', target: 0.4, paths: perLawyer('/reviews?limit=10') },
  { name: 'cities', kind: 'reference', target: 0.7, paths: fixed('/cities') },
  { name: 'practice-areas', kind: 'reference', target: 0.7, paths: fixed('/practice-areas') },
  // Site pages for people (HTML rendered on the server); the raw baseline answers the same bytes.
  { name: 'site: home', kind: 'site', target: 0.5, paths: () => ['/'] },
  // Search results as a phone sees them: each card with its first three free times (issue 19, phone first).
  { name: 'site: search results', kind: 'site', target: 0.5, paths: () => ['/?city=madrid', '/?practice_area=residence', '/?city=barcelona&sort=price_asc', '/?language=ar'] },
  { name: 'site: lawyer profile', kind: 'site', target: 0.5, paths: sitePerLawyer('') },
  { name: 'site: booking page', kind: 'site', target: 0.5, paths: sitePerLawyer('/book') },
  // The booking widget's frame (issue 27 item 6: "within the site pages' share of the raw
  // baseline"): what embed.js frames, with the bench's publishable key (bench/seed.ts widgetKey).
  // One lawyer's booker, as the booking page above; and search presets, as the search results.
  { name: 'widget: booker', kind: 'widget', target: 0.5, paths: (ids, b) => ids.map((id) => `/embed/lawyers/${id}?${frameQuery(b.widgetKey)}`) },
  {
    name: 'widget: search preset',
    kind: 'widget',
    target: 0.5,
    paths: (_ids, b) => [
      `/embed/search?${frameQuery(b.widgetKey, { city: 'madrid' })}`,
      `/embed/search?${frameQuery(b.widgetKey, { area: 'residence' })}`,
      `/embed/search?${frameQuery(b.widgetKey, { city: 'barcelona', remote: '1' })}`,
      `/embed/search?${frameQuery(b.widgetKey, { language: 'ar' })}`,
    ],
  },
];

/** Search p50 with the largest directory ÷ p50 with the smallest must not exceed this. */
export const SCALE_TARGET = 1.5;
/** Server RSS under load with the largest directory must stay below this (MB). */
export const RSS_TARGET_MB = 300;
