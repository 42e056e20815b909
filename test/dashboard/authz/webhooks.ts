/**
 * Webhook routes that name an object: a person's endpoint by id, a firm by slug, a firm's
 * endpoint by id, and a message of an endpoint. The victim owns the endpoint (or the firm); the
 * attacker is signed in but no member: 404, and the endpoint (secret included), its messages and
 * the firm's endpoints are exactly as they were.
 */
import type { Actor } from '../../../src/domain/access/types.ts';
import type { TestContext } from '../../support/app.ts';
import type { ForeignObjectCase, SignedIn } from '../../support/dashboard.ts';
import { endpointRow, messagesOf } from '../../webhooks/support.ts';

const OPERATOR: Actor = { type: 'operator' };
// A public address literal: accepted by the real address policy without DNS.
const URL = 'https://93.184.216.34/hooks/victim';
let firms = 0;

type State = 'enabled' | 'disabled' | 'dead-message';

/** The victim's endpoint (personal, or of a firm they own) in the state the route acts on. */
async function victimEndpoint(ctx: TestContext, victim: SignedIn, firm: boolean, state: State) {
  const actor: Actor = { type: 'user', userId: victim.userId };
  let slug: string | null = null;
  if (firm) {
    slug = `victim-hooks-${++firms}`;
    await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Victim firm', ownerEmail: victim.email });
  }
  const { endpoint } = await ctx.app.services.webhooks.create(actor, slug ? { firmSlug: slug } : null, { url: URL });
  const { messageId } = await ctx.app.services.webhooks.sendTest(actor, endpoint.id);
  if (state === 'dead-message') {
    // As the dispatcher leaves a message after its last failed attempt (the app runs none here).
    await ctx.database.db.updateTable('webhook_messages').set({ status: 'dead', attempts: 6, next_attempt_at: null, locked_until: null, claim_token: null }).where('id', '=', messageId).execute();
  }
  if (state === 'disabled') await ctx.app.services.webhooks.disable(actor, endpoint.id, 'victim paused it');
  const snapshot = async () => ({
    endpoint: await endpointRow(ctx.database, endpoint.id),
    messages: await messagesOf(ctx.database, endpoint.id),
    firmEndpoints: slug ? (await ctx.app.services.webhooks.list(OPERATOR, { firmSlug: slug })).map((e) => e.id) : null,
  });
  return { slug, id: endpoint.id, messageId, snapshot };
}

const route = (firm: boolean, path: string, method: 'GET' | 'POST', state: State = 'enabled', form?: Record<string, string>): ForeignObjectCase => ({
  route: `${firm ? '/firms/:slug' : '/developer'}/webhooks${path}`,
  method,
  async setup(ctx, victim) {
    const { slug, id, messageId, snapshot } = await victimEndpoint(ctx, victim, firm, state);
    const url = `${firm ? `/firms/${slug}` : '/developer'}/webhooks${path.replace(':id', id).replace(':messageId', messageId)}`;
    return { url, form, snapshot };
  },
});

const endpointRoutes = (firm: boolean): ForeignObjectCase[] => [
  route(firm, '/:id', 'GET'),
  // The deliveries fragment the endpoint page's script polls: the same check as the page.
  route(firm, '/:id/deliveries', 'GET'),
  route(firm, '/:id/test', 'POST'),
  route(firm, '/:id/rotate', 'POST'),
  route(firm, '/:id/disable', 'GET'),
  route(firm, '/:id/disable', 'POST', 'enabled', { reason: 'hijack', confirm: 'yes' }),
  route(firm, '/:id/enable', 'POST', 'disabled'),
  route(firm, '/:id/messages/:messageId', 'GET', 'dead-message'),
  route(firm, '/:id/messages/:messageId/retry', 'POST', 'dead-message'),
];

export const cases: ForeignObjectCase[] = [
  ...endpointRoutes(false),
  route(true, '', 'GET'),
  route(true, '/new', 'GET'),
  route(true, '', 'POST', 'enabled', { url: 'https://93.184.216.34/hooks/planted', events: 'booking_intent.confirmed' }),
  ...endpointRoutes(true),
];
