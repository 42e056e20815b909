import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ERROR_CODES, type ErrorCode } from '../domain/errors.ts';
import { sendProblem } from '../http/problem.ts';
import type { BookingService } from '../domain/booking/booking.service.ts';
import { escapeHtml, page } from './html.ts';

export interface SiteRoutesOptions {
  config: Config;
  database: Database;
  booking: BookingService;
  clock: Clock;
}

const hidden = { hide: true };

export const siteRoutes: FastifyPluginAsync<SiteRoutesOptions> = async (app, { config, database, booking, clock }) => {
  app.get('/booking/test-mode', { schema: hidden }, async (_request, reply) => {
    const body = `<h1>This was a test booking</h1>
<p>The request was made with a <strong>test API key</strong> (<code>svc_test_…</code>). Every check ran — the lawyer, the slot and its availability — but <strong>nothing was held or stored, no lawyer was notified</strong>, and nothing can be confirmed or paid.</p>
<p>Switch to a live key (<code>svc_…</code>) to create real booking intents; nothing else in your integration needs to change.</p>`;
    return reply.type('text/html; charset=utf-8').send(page('Test mode', body));
  });

  app.get<{ Params: { token: string } }>('/confirm/:token', { schema: hidden }, async (request, reply) => {
    const intent = /^[A-Za-z0-9_-]{20,64}$/.test(request.params.token) ? await booking.findByConfirmationToken(request.params.token) : undefined;
    // Confirmation links are capabilities: never index them, never leak them onwards.
    reply.header('x-robots-tag', 'noindex').header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
    if (!intent) {
      return reply.code(404).type('text/html; charset=utf-8').send(page('Link not found', '<h1>This confirmation link is not valid</h1><p>Check the link, or ask your assistant to find another slot.</p>'));
    }
    const expired = intent.status === 'expired' || (intent.status === 'pending' && intent.expires_at <= clock.now().toISOString());
    const state = intent.status === 'confirmed' ? 'This consultation is confirmed.' : expired ? 'This hold has expired; the slot was released. Ask for another slot.' : `This slot is held for you until ${escapeHtml(intent.expires_at)}.`;
    const body = `<h1>Your consultation</h1>
<p>${escapeHtml(intent.slot_date)}, ${escapeHtml(intent.start_time.slice(0, 5))}–${escapeHtml(intent.end_time.slice(0, 5))} (the lawyer's local time).</p>
<p><strong>${state}</strong></p>
${intent.status === 'pending' && !expired ? '<p>Sign in to confirm and pay. (Sign-in and payment are being built.)</p>' : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Confirm your consultation', body));
  });

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
