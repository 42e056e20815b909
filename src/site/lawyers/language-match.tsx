/**
 * The language match on the person's pages (DESIGN.md §13; docs/site.md#languages-and-lawyers-from-anywhere):
 * the card's "speaks Arabic" and "video from Sevilla", the mismatch notice from the profile to the
 * payment page (with a link to lawyers who do speak the person's language, video from elsewhere
 * included) and the hold page's question. Pure components: the routes pass what they know.
 */
import type { SiteContext } from '../context.ts';
import type { Locale } from '../../i18n/index.ts';
import { languageName, listOf } from '../../i18n/reference.ts';
import { intlTag } from '../../i18n/locales.ts';
import { Notice } from '../ui/components.tsx';
import type { PersonErrors } from '../../domain/booking/purchase.service.ts';
import type { LanguageAck } from '../../db/schema.ts';

const orLists = new Map<Locale, Intl.ListFormat>();
/** "Arabic or French": the person's languages, any of which would do. */
export function anyOf(locale: Locale, codes: readonly string[]): string {
  let f = orLists.get(locale);
  if (!f) orLists.set(locale, (f = new Intl.ListFormat(intlTag(locale), { style: 'long', type: 'disjunction' })));
  return f.format(codes.map((c) => languageName(locale, c)));
}

/** The search for lawyers who speak the person's first language, in a city (video from elsewhere included). */
export function speakersHref(languages: readonly string[], citySlug: string | null): string {
  const params = new URLSearchParams();
  if (citySlug) params.set('city', citySlug);
  params.set('language', languages[0]!);
  params.set('include_remote', 'true');
  return `/?${params}`;
}

/**
 * "This lawyer does not speak Arabic": said on every page from the profile to payment when the
 * lawyer speaks none of the person's languages, with the way to lawyers who do.
 */
export function MismatchNotice({ ctx, person, lawyerLanguages, citySlug }: { ctx: SiteContext; person: readonly string[]; lawyerLanguages: readonly string[]; citySlug: string | null }) {
  const m = ctx.t.languageMatch;
  return (
    <Notice kind="warn">
      <section class="language-mismatch" aria-labelledby="mismatch-heading">
        <h2 id="mismatch-heading">{m.mismatchHeading(anyOf(ctx.locale, person))}</h2>
        <p>{m.mismatchBody(listOf(ctx.locale, lawyerLanguages.map((c) => languageName(ctx.locale, c))))}</p>
        <p>
          <a href={speakersHref(person, citySlug)}>{m.findSpeakers(anyOf(ctx.locale, person))}</a>
        </p>
      </section>
    </Notice>
  );
}

/** The hold page's part of the person: their name (asked once) and, on a mismatch, their answer. */
export function PersonFields({
  ctx,
  mismatch,
  askName,
  knownName,
  values,
  errors,
}: {
  ctx: SiteContext;
  mismatch: boolean;
  askName: boolean;
  /** The name the lawyer will see, when it is known already (the account's, or given on this hold). */
  knownName?: string | null;
  values?: { person_name?: string; language_ack?: string };
  errors?: PersonErrors;
}) {
  const m = ctx.t.languageMatch;
  const ack = values?.language_ack;
  return (
    <>
      {askName ? (
        <div class="field">
          <label for="f-person_name">{m.nameLabel}</label>
          <input
            id="f-person_name"
            name="person_name"
            type="text"
            value={values?.person_name ?? ''}
            autocomplete="name"
            maxLength={100}
            aria-invalid={errors?.person_name ? 'true' : undefined}
            aria-describedby={['f-person_name-hint', errors?.person_name ? 'f-person_name-error' : null].filter(Boolean).join(' ')}
          />
          <span class="hint" id="f-person_name-hint">
            {m.nameHint}
          </span>
          {errors?.person_name ? (
            <span class="field-error" id="f-person_name-error" role="alert">
              {errors.person_name === 'name_too_long' ? m.nameTooLong : errors.person_name === 'name_is_email' ? m.nameIsEmail : m.nameInvalid}
            </span>
          ) : null}
        </div>
      ) : knownName ? (
        <p class="person-name-known">
          {m.nameKnown(knownName)} <a href="/account#account-name">{m.nameChange}</a>
        </p>
      ) : null}
      {mismatch ? (
        <fieldset class="language-ack" aria-describedby={errors?.language_ack ? 'f-language_ack-error' : undefined}>
          <legend>{m.ackLegend}</legend>
          <div class="checks">
            <label>
              <input id="f-language_ack-0" type="radio" name="language_ack" value="interpreter" checked={ack === 'interpreter'} required aria-invalid={errors?.language_ack ? 'true' : undefined} /> <span>{m.ackInterpreter}</span>
            </label>
            <label>
              <input id="f-language_ack-1" type="radio" name="language_ack" value="spanish" checked={ack === 'spanish'} required aria-invalid={errors?.language_ack ? 'true' : undefined} /> <span>{m.ackSpanish}</span>
            </label>
          </div>
          {errors?.language_ack ? (
            <span class="field-error" id="f-language_ack-error" role="alert">
              {m.ackRequired}
            </span>
          ) : null}
        </fieldset>
      ) : null}
    </>
  );
}

/** The payment page's reminder of the person's answer. */
export function AckDone({ ctx, ack }: { ctx: SiteContext; ack: LanguageAck }) {
  const m = ctx.t.languageMatch;
  return <p class="meta language-ack-done">{ack === 'interpreter' ? m.ackInterpreterDone : m.ackSpanishDone}</p>;
}

/** A result card's language line for the person ("Speaks Arabic") and the remote mark ("Video or phone · from Sevilla"). */
export function CardMatch({ ctx, inCommon, remoteCity }: { ctx: SiteContext; inCommon: readonly string[] | undefined; remoteCity: string | null }) {
  const m = ctx.t.languageMatch;
  if ((inCommon === undefined || inCommon.length === 0) && remoteCity === null) return null;
  return (
    <p class="card-match">
      {inCommon && inCommon.length > 0 ? <span class="badge speaks">{m.speaksYours(listOf(ctx.locale, inCommon.map((c) => languageName(ctx.locale, c))))}</span> : null}
      {remoteCity !== null ? <span class="badge remote">{m.remote(remoteCity)}</span> : null}
    </p>
  );
}
