/**
 * POST /payments/stripe/webhook: Stripe's events. The signature covers the exact bytes Stripe
 * sent, so this plugin (and only it) reads JSON bodies as raw Buffers instead of parsing them.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PaymentsService } from '../../domain/payments/payments.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { sendProblem } from '../problem.ts';

export interface StripeWebhookRoutesOptions {
  payments: Pick<PaymentsService, 'handleStripeWebhook'>;
  siteUrl: string;
}

/** Stripe's events are a few kilobytes; this leaves room for large ones without inviting abuse. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export const stripeWebhookRoutes: FastifyPluginAsync<StripeWebhookRoutesOptions> = async (app, { payments, siteUrl }) => {
  // Scoped to this plugin (not wrapped in fastify-plugin): the rest of the app keeps its parser.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post('/payments/stripe/webhook', { schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
    const body = request.body;
    if (!Buffer.isBuffer(body)) return sendProblem(reply, siteUrl, 'unsupported_media_type', 'Send the event as application/json.');
    const signature = request.headers['stripe-signature'];
    try {
      const result = await payments.handleStripeWebhook(body, typeof signature === 'string' ? signature : undefined);
      request.log.info({ stripe_webhook: result.status }, 'stripe webhook');
      return reply.code(200).send({ received: true });
    } catch (err) {
      if (err instanceof DomainError) return sendProblem(reply, siteUrl, err.code, err.detail);
      // Anything else is a 500: Stripe delivers the event again later.
      throw err;
    }
  });
};
