/** The page behind a test key's confirmation_url: what test mode did and did not do. */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { TestModePage } from './confirm.page.tsx';

export async function testModeArea(site: FastifyInstance): Promise<void> {
  site.get('/booking/test-mode', { schema: { hide: true } }, async (request, reply) => reply.page(h(TestModePage, { ctx: request.site })));
}
