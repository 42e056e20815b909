/** Dates and times as people read them, in the page's language. Pure functions. */
const tag = (locale: string) => (locale === 'es' ? 'es-ES' : 'en-GB');

/** `2026-11-30` → "lunes, 30 de noviembre de 2026" / "Monday 30 November 2026". */
export function formatDay(date: string, locale: string): string {
  return new Intl.DateTimeFormat(tag(locale), { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
}

/** `10:00:00` → "10:00". */
export function formatTime(time: string): string {
  return time.slice(0, 5);
}

/** An instant in a zone: "30 nov 2026, 10:00 CET". */
export function formatInstant(iso: string, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(tag(locale), { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(new Date(iso));
}

/** A zone's name for people: "Europe/Madrid" → "Madrid (peninsular Spain)" is left to the catalogue; this gives the city part. */
export function zoneCity(timeZone: string): string {
  return (timeZone.split('/').pop() ?? timeZone).replaceAll('_', ' ');
}
