/** Help, the contact form and the legal pages: pure components of their props. */
import type { LegalIdentity } from '../../config.ts';
import { CONTACT_LIMITS, CONTACT_TOPICS } from '../../domain/contact/contact.service.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm, Select } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';
import { Bidi } from '../ui/bidi.tsx';
import { LEGAL_CHROME, type CookieEntry, type LegalDocument, type LegalPage } from './legal-texts.ts';

export function HelpPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.face.help;
  return (
    <Layout ctx={ctx} title={t.title} section="help">
      <div class="prose">
        <h1>{t.title}</h1>
        <p class="lead">{t.intro}</p>
      </div>
      <ul class="help-topics">
        {t.topics.map((topic) => (
          <li class="card" id={topic.id}>
            <h2>{topic.title}</h2>
            <p>{topic.body}</p>
          </li>
        ))}
      </ul>
      <ul class="help-links">
        <li>
          <a href="/help/verification">{ctx.t.lawyer.trust.howWeVerify}</a>
        </li>
        <li>
          <a href="/help/reviews">{ctx.t.reviewReports.howVerified}</a>
        </li>
      </ul>
      <section class="card" aria-labelledby="more-help">
        <h2 id="more-help">{t.more}</h2>
        <p>{t.moreText}</p>
        <p>
          <a class="button" href="/contact">{t.contactButton}</a>
        </p>
      </section>
    </Layout>
  );
}

export interface ContactValues {
  name: string;
  email: string;
  topic: string;
  message: string;
}

export type ContactErrors = Partial<Record<keyof ContactValues, string>>;

export function ContactPage({ ctx, values, errors }: { ctx: SiteContext; values: ContactValues; errors: ContactErrors }) {
  const t = ctx.t.face.contact;
  const hasErrors = Object.keys(errors).length > 0;
  // Focus lands on the first field to fix (the autofocus attribute: no script needed).
  const first = (['name', 'email', 'topic', 'message'] as const).find((k) => errors[k]);
  const messageId = 'f-message';
  const describedBy = [`${messageId}-hint`, errors.message ? `${messageId}-error` : null].filter(Boolean).join(' ');
  return (
    <Layout ctx={ctx} title={t.title} section="contact" narrow>
      <h1>{t.title}</h1>
      <p>{t.intro}</p>
      {hasErrors ? (
        <Notice kind="bad" role="alert">
          <p>{t.fixErrors}</p>
        </Notice>
      ) : null}
      <PostForm ctx={ctx} action="/contact" once novalidate>
        <Field name="name" label={t.name} value={values.name} error={errors.name} autofocus={first === 'name'} required autocomplete="name" maxLength={CONTACT_LIMITS.nameMax} />
        <Field name="email" label={t.email} type="email" value={values.email} error={errors.email} autofocus={first === 'email'} hint={t.emailHint} required autocomplete="email" inputmode="email" maxLength={254} />
        <Select name="topic" label={t.topic} value={values.topic} options={CONTACT_TOPICS.map((v) => ({ value: v, label: t.topics[v] }))} error={errors.topic} />
        <div class="field">
          <label for={messageId}>{t.message}</label>
          <textarea
            id={messageId}
            name="message"
            rows={8}
            required
            minLength={CONTACT_LIMITS.messageMin}
            maxLength={CONTACT_LIMITS.messageMax}
            aria-invalid={errors.message ? 'true' : undefined}
            aria-describedby={describedBy}
            autofocus={first === 'message'}
          >
            {values.message}
          </textarea>
          <span class="hint" id={`${messageId}-hint`}>{t.messageHint(CONTACT_LIMITS.messageMin, CONTACT_LIMITS.messageMax)}</span>
          {errors.message ? <span class="field-error" id={`${messageId}-error`}>{errors.message}</span> : null}
        </div>
        <p class="meta">
          {t.privacyNote} <a href="/legal/privacy">{ctx.t.face.legalNav.privacy}</a>
        </p>
        <button type="submit" class="wide">{t.send}</button>
      </PostForm>
    </Layout>
  );
}

export function ContactSentPage({ ctx, reference }: { ctx: SiteContext; reference: string | null }) {
  const t = ctx.t.face.contact;
  return (
    <Layout ctx={ctx} title={t.sentTitle} section="contact" narrow>
      <h1>{t.sentTitle}</h1>
      <Notice kind="ok" role="status">
        <p>{t.sent}</p>
        {reference ? <p class="mono">{t.sentReference(reference)}</p> : null}
      </Notice>
      <p>
        <a class="button secondary" href="/">{t.backHome}</a>
      </p>
    </Layout>
  );
}

export interface LegalPageProps {
  ctx: SiteContext;
  page: LegalPage;
  doc: LegalDocument;
  legal: LegalIdentity;
  updated: string;
  cookies?: CookieEntry[];
}

/**
 * A legal page: every language has its own text (src/site/help/legal-texts.ts and ./legal/); on
 * every translation a notice says, in its language, that the Spanish text prevails and links to it.
 */
export function LegalPageView({ ctx, page, doc, legal, updated, cookies }: LegalPageProps) {
  const nav = ctx.t.face.legalNav;
  const links: Array<[LegalPage, string]> = [
    ['aviso-legal', nav.notice],
    ['privacy', nav.privacy],
    ['terms', nav.terms],
    ['cookies', nav.cookies],
  ];
  const chrome = LEGAL_CHROME[ctx.locale];
  const head = chrome.cookieHead;
  return (
    <Layout ctx={ctx} title={doc.title} section="legal">
      <nav class="legal-nav" aria-label={nav.label}>
        <ul>
          {links.map(([p, label]) => (
            <li>
              <a href={`/legal/${p}`} aria-current={p === page ? 'page' : undefined}>{label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <article class="prose">
        <h1>{doc.title}</h1>
        <p class="legal-meta">
          <Bidi ctx={ctx} text={chrome.updated(updated)} />
        </p>
        {chrome.prevails ? (
          <Notice>
            <p class="legal-prevails">
              {chrome.prevails}{' '}
              <a href={`/legal/${page}?lang=es`} hreflang="es">{chrome.spanishVersion}</a>
            </p>
          </Notice>
        ) : null}
        {legal.demo && (page === 'aviso-legal' || page === 'privacy' || page === 'terms') ? (
          <Notice kind="warn">
            <p>
              <Bidi ctx={ctx} text={chrome.demo} />
            </p>
          </Notice>
        ) : null}
        {/* The operator's facts, laws' numbers, dates and addresses stay left to right in Arabic (issue 25 item 10). */}
        <p class="lead">
          <Bidi ctx={ctx} text={doc.intro} />
        </p>
        {doc.sections.map((s, i) => (
          <section>
            <h2>
              <Bidi ctx={ctx} text={s.heading} />
            </h2>
            {s.paragraphs?.map((p) => (
              <p>
                <Bidi ctx={ctx} text={p} />
              </p>
            ))}
            {s.list ? (
              <ul>
                {s.list.map((item) => (
                  <li>
                    <Bidi ctx={ctx} text={item} />
                  </li>
                ))}
              </ul>
            ) : null}
            {s.link ? (
              <p>
                <a href={s.link.href}>{s.link.text}</a>
              </p>
            ) : null}
            {/* The cookie statement's first section is the list of every cookie. */}
            {page === 'cookies' && i === 0 && cookies ? (
              <ul class="cards cookie-list" aria-label={head.caption}>
                {cookies.map((c) => (
                  <li class="card">
                    <h3 class="cookie-names">
                      {c.names.map((n) => (
                        <code dir="ltr">{n}</code>
                      ))}
                    </h3>
                    <dl class="facts">
                      <dt>{head.purpose}</dt>
                      <dd>{c.purpose[ctx.locale]}</dd>
                      <dt>{head.lifetime}</dt>
                      <dd>{c.lifetime[ctx.locale]}</dd>
                      <dt>{head.type}</dt>
                      <dd>{head.necessary}</dd>
                    </dl>
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        ))}
      </article>
    </Layout>
  );
}
