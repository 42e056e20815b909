/** The error-code documentation pages that problem documents link to (`type`). */
import { ERROR_CODES, type ErrorCode } from '../../domain/errors.ts';
import type { SiteContext } from '../context.ts';
import { Layout } from '../ui/layout.tsx';

export function ErrorCodesPage({ ctx }: { ctx: SiteContext }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.docs.errorsTitle} section="docs">
      <h1>{t.docs.errorsTitle}</h1>
      <p>{t.docs.errorsIntro}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.docs.code}</th>
            <th scope="col">{t.docs.status}</th>
            <th scope="col">{t.docs.titleCol}</th>
          </tr>
        </thead>
        <tbody>
          {(Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => (
            <tr>
              <td>
                <a href={`/docs/errors/${code}`}>
                  <code>{code}</code>
                </a>
              </td>
              <td>{ERROR_CODES[code].status}</td>
              <td>{ERROR_CODES[code].title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}

/** One code. The catalogue's English text is the reference wording for integrators. */
export function ErrorCodePage({ ctx, code, siteUrl }: { ctx: SiteContext; code: ErrorCode; siteUrl: string }) {
  const { t } = ctx;
  const info = ERROR_CODES[code];
  const example = JSON.stringify({ type: `${siteUrl}/docs/errors/${code}`, title: info.title, status: info.status, detail: '…', code, instance: 'req_…' }, null, 2);
  return (
    <Layout ctx={ctx} title={`${t.docs.errorTitle} ${code}`} section="docs">
      <h1>
        <code>{code}</code>
      </h1>
      <p>
        <strong>
          HTTP {info.status} — {info.title}
        </strong>
      </p>
      {/* Empty in English (and in languages whose developer area is English). */}
      {t.docs.englishOnly ? <p class="meta">{t.docs.englishOnly}</p> : null}
      <h2>{t.docs.means}</h2>
      <p>{info.description}</p>
      <h2>{t.docs.todo}</h2>
      <p>{info.resolution}</p>
      <h2>{t.docs.example}</h2>
      <pre tabIndex={0}>{example}</pre>
      <p>
        <a href="/docs/errors">{t.docs.allCodes}</a>
      </p>
    </Layout>
  );
}
