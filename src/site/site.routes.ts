import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ERROR_CODES, type ErrorCode } from '../domain/errors.ts';
import { sendProblem } from '../http/problem.ts';
import { escapeHtml, page } from './html.ts';

export interface SiteRoutesOptions {
  config: Config;
  database: Database;
}

const hidden = { hide: true };

export const siteRoutes: FastifyPluginAsync<SiteRoutesOptions> = async (app, { config, database }) => {
  app.get('/healthz', { schema: hidden }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: hidden }, async (_request, reply) => {
    try {
      await database.ping();
      return { status: 'ready', database: database.dialect };
    } catch {
      return sendProblem(reply, config.siteUrl, 'service_unavailable', 'The database is not reachable.', undefined, { 'retry-after': '5' });
    }
  });

  app.get('/', { schema: hidden }, async (_request, reply) => {
    const body = `<h1>Consulta</h1>
<p>Find a verified immigration lawyer in Spain, see real availability and price, and hold a consultation slot for 15 minutes while you confirm and pay.</p>
<ul>
<li>REST API: <code>${escapeHtml(config.baseUrl)}</code> — <a href="/docs/api">interactive reference</a>, <a href="/api/v1/openapi.json">OpenAPI 3.1 document</a></li>
<li>MCP server: <code>${escapeHtml(config.mcpUrl)}</code></li>
<li><a href="/docs/errors">Error codes</a></li>
</ul>`;
    return reply.type('text/html; charset=utf-8').send(page('Find a verified immigration lawyer in Spain', body));
  });

  app.get('/docs/errors', { schema: hidden }, async (_request, reply) => {
    const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
      .map((code) => `<tr><td><a href="/docs/errors/${code}"><code>${code}</code></a></td><td>${ERROR_CODES[code].status}</td><td>${escapeHtml(ERROR_CODES[code].title)}</td></tr>`)
      .join('');
    const body = `<h1>Error codes</h1><p>Every error is an RFC 9457 problem document (<code>application/problem+json</code>) with a stable <code>code</code>; its <code>type</code> links here and its <code>instance</code> is the request id to quote to support.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>${rows}</tbody></table>`;
    return reply.type('text/html; charset=utf-8').send(page('Error codes', body));
  });

  app.get<{ Params: { code: string } }>('/docs/errors/:code', { schema: hidden }, async (request, reply) => {
    const code = request.params.code;
    if (!Object.hasOwn(ERROR_CODES, code)) {
      return sendProblem(reply, config.siteUrl, 'not_found', `There is no such error code. All codes are listed at ${config.siteUrl}/docs/errors.`);
    }
    const info = ERROR_CODES[code as ErrorCode];
    const example = JSON.stringify(
      { type: `${config.siteUrl}/docs/errors/${code}`, title: info.title, status: info.status, detail: '…', code, instance: 'req_…' },
      null,
      2,
    );
    const body = `<h1><code>${escapeHtml(code)}</code></h1>
<p><strong>HTTP ${info.status} — ${escapeHtml(info.title)}</strong></p>
<h2>What it means</h2><p>${escapeHtml(info.description)}</p>
<h2>What to do</h2><p>${escapeHtml(info.resolution)}</p>
<h2>Example</h2><pre>${escapeHtml(example)}</pre>`;
    return reply.type('text/html; charset=utf-8').send(page(`Error ${code}`, body));
  });
};
