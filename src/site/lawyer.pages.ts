/** The lawyer pages behind `profile_url` and `booking_url`: server-rendered, for people. */
import type { FastifyPluginAsync } from 'fastify';
import type { DirectoryService } from '../domain/directory/directory.service.ts';
import { DomainError } from '../domain/errors.ts';
import { escapeHtml, page } from './html.ts';

export interface LawyerPagesOptions {
  directory: DirectoryService;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const euros = (cents: number) => (cents / 100).toLocaleString('es-ES', { style: 'currency', currency: 'EUR' });

export const lawyerPages: FastifyPluginAsync<LawyerPagesOptions> = async (app, { directory }) => {
  const notFound = () => page('Lawyer not found', '<h1>This lawyer is not listed</h1><p><a href="/">Search again</a>.</p>');

  /** Loads through the same domain service as the API; hidden or unknown lawyers are a 404 page. */
  const load = async <T>(id: string, fn: () => Promise<T>): Promise<T | null> => {
    if (!UUID.test(id)) return null;
    try {
      return await fn();
    } catch (err) {
      if (err instanceof DomainError && err.code === 'not_found') return null;
      throw err;
    }
  };

  app.get<{ Params: { id: string } }>('/lawyers/:id', { schema: { hide: true } }, async (request, reply) => {
    const p = await load(request.params.id, () => directory.getProfile(request.params.id, { fenced: false }));
    if (!p) return reply.code(404).type('text/html; charset=utf-8').send(notFound());
    const areas = p.practice_areas.map((a) => `<li>${escapeHtml(a.name)}${a.is_primary ? ' <small>(main area)</small>' : ''}</li>`).join('');
    const bars = p.bar_memberships.map((b) => `<li>${escapeHtml(b.bar_name)}${b.verified ? ' ✓ verified' : ''}</li>`).join('');
    const body = `<h1>${escapeHtml(p.name)}</h1>
<p>${escapeHtml(p.city)} · ${p.languages.map(escapeHtml).join(', ')}</p>
<p><strong>${euros(p.consultation_fee_cents)}</strong> consultation fee${p.average_rating !== null ? ` · rated ${p.average_rating.toFixed(1)}/5` : ''}${p.total_bookings !== null ? ` · ${p.total_bookings} consultations` : ''}</p>
<h2>Practice areas</h2><ul>${areas}</ul>
${p.bio ? `<h2>About</h2><p class="bio">${escapeHtml(p.bio).replace(/\n/g, '<br>')}</p>` : ''}
<h2>Bar memberships</h2><ul>${bars}</ul>
<p>${p.next_available ? `Next available: <strong>${escapeHtml(p.next_available)}</strong>. ` : 'No free consultation in the coming weeks. '}<a href="/lawyers/${escapeHtml(p.id)}/book">See times</a></p>`;
    return reply.type('text/html; charset=utf-8').send(page(p.name, body));
  });

  app.get<{ Params: { id: string } }>('/lawyers/:id/book', { schema: { hide: true } }, async (request, reply) => {
    const a = await load(request.params.id, () => directory.getAvailability(request.params.id, {}));
    if (!a) return reply.code(404).type('text/html; charset=utf-8').send(notFound());
    const byDate = new Map<string, string[]>();
    for (const s of a.slots.filter((x) => x.available)) {
      const list = byDate.get(s.date) ?? [];
      list.push(s.start_time.slice(0, 5));
      byDate.set(s.date, list);
    }
    const rows = [...byDate].map(([date, times]) => `<tr><td>${escapeHtml(date)}</td><td>${times.map(escapeHtml).join(' · ')}</td></tr>`).join('');
    const body = `<h1>Book a consultation with ${escapeHtml(a.lawyer_name)}</h1>
<p>${euros(a.consultation_fee_cents)} · times in ${escapeHtml(a.timezone)} (the lawyer's local time).</p>
${rows ? `<table><thead><tr><th>date</th><th>free times</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No free times in the next two weeks.</p>'}
<p>Ask your assistant to hold one of these times for you: you will get a link to confirm and pay here within 15 minutes.</p>`;
    return reply.type('text/html; charset=utf-8').send(page(`Book ${a.lawyer_name}`, body));
  });
};
