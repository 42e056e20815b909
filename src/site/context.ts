/**
 * What every page knows about its request: the language, the strings, the signed-in person, the
 * CSRF token for its forms, and the hashed asset URLs. Built once per site request.
 */
import type { Locale, Messages } from '../i18n/index.ts';

export interface SiteUser {
  id: string;
  email: string;
  name: string | null;
  /** May open the operator console (still asked for a recent passkey for sensitive actions). */
  operator: boolean;
  /** Linked to a lawyer record (lawyers.user_id): the header links to the lawyer's portal. */
  lawyer: boolean;
  /** Has developer work (a key, an endpoint, a firm) or is an operator: the header shows the Developers entry on every page. */
  developer: boolean;
}

export interface SiteContext {
  locale: Locale;
  t: Messages;
  user: SiteUser | null;
  /** The signed-in session (null when signed out): its id and when it last proved a passkey. */
  session: { id: string; stepUpAt: string | null } | null;
  /** The path and query of this page without `lang`, for the language switcher and return_to. */
  path: string;
  /** The site's origin (`SITE_URL`), for absolute links such as the `hreflang` alternates. */
  origin: string;
  requestId: string;
  /**
   * The visitor's IANA time zone when known (the `consulta_tz` cookie, validated), for showing
   * their own time beside the lawyer's on the booking path (src/site/booking/visitor-zone.ts).
   */
  zone?: string | null;
  /** A CSRF token for this page's forms (sets its secret cookie on first use). */
  csrfToken(): string;
  asset(name: string): string;
}
