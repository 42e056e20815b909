/**
 * Spain's public holidays for a lawyer's calendar (issue 26 item 7; docs/lawyers.md#holidays):
 * the national ones and her autonomous community's, from `date-holidays` (a maintained data
 * library: moving feasts, regional substitutions and the yearly changes are its data, not ours).
 * Closed by default for every lawyer; she may open one of those days or close a local holiday of
 * her city (lawyer_holiday_choices). Her region is her city's province's autonomous community.
 *
 * Availability is a hot path: the dates of one (region, year) are computed once per process and
 * kept (19 regions × a few years: a few hundred small entries), never per request.
 */
import Holidays from 'date-holidays';

/** The autonomous communities as the reference data names them (provinces.autonomous_community) → date-holidays' ES region codes. */
const REGION_OF_COMMUNITY: Readonly<Record<string, string>> = {
  'Andalucía': 'AN',
  'Aragón': 'AR',
  'Principado de Asturias': 'AS',
  'Illes Balears': 'IB',
  'Canarias': 'CN',
  'Cantabria': 'CB',
  'Castilla y León': 'CL',
  'Castilla-La Mancha': 'CM',
  'Cataluña': 'CT',
  'Comunitat Valenciana': 'VC',
  'Extremadura': 'EX',
  'Galicia': 'GA',
  'Comunidad de Madrid': 'MD',
  'Región de Murcia': 'MC',
  'Comunidad Foral de Navarra': 'NC',
  'País Vasco': 'PV',
  'La Rioja': 'RI',
  'Ceuta': 'CE',
  'Melilla': 'ML',
};

/** date-holidays' region code of an autonomous community, or null (unknown: national holidays only). */
export function regionOfCommunity(community: string | null | undefined): string | null {
  return (community && REGION_OF_COMMUNITY[community]) || null;
}

/** A public holiday: its date (YYYY-MM-DD) and its name as the library gives it (Spanish, or the region's language). */
export interface Holiday {
  date: string;
  name: string;
}

const cache = new Map<string, ReadonlyMap<string, string>>();

/**
 * The public (non-working) holidays of Spain and, when given, of one autonomous community, in one
 * year: date → name. Observances (Mother's Day, Easter Sunday) are not days off and are left out.
 */
export function publicHolidays(region: string | null, year: number): ReadonlyMap<string, string> {
  const key = `${region ?? ''}:${year}`;
  let dates = cache.get(key);
  if (!dates) {
    const hd = region ? new Holidays('ES', region) : new Holidays('ES');
    const map = new Map<string, string>();
    for (const h of hd.getHolidays(year) || []) if (h.type === 'public') map.set(h.date.slice(0, 10), h.name);
    cache.set(key, (dates = map));
  }
  return dates;
}

/** Her region's public holidays between two dates (inclusive), in date order. */
export function holidaysBetween(region: string | null, fromDate: string, toDate: string): Holiday[] {
  const out: Holiday[] = [];
  for (let year = Number(fromDate.slice(0, 4)); year <= Number(toDate.slice(0, 4)); year++) {
    for (const [date, name] of publicHolidays(region, year)) if (date >= fromDate && date <= toDate) out.push({ date, name });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

/**
 * The dates she does not work for a holiday between two dates: her region's public holidays she
 * did not open, and the local ones she closed.
 */
export function closedHolidayDates(region: string | null, fromDate: string, toDate: string, choices: ReadonlyArray<{ date: string; choice: 'open' | 'closed' }>): Set<string> {
  const chosen = new Map(choices.map((c) => [c.date, c.choice]));
  const closed = new Set<string>();
  for (const h of holidaysBetween(region, fromDate, toDate)) if (chosen.get(h.date) !== 'open') closed.add(h.date);
  for (const [date, choice] of chosen) if (choice === 'closed' && date >= fromDate && date <= toDate) closed.add(date);
  return closed;
}
