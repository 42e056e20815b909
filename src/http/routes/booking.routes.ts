import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NoQuerySchema, problems } from '../../contract/common.ts';
import {
  BookingIntentSchema,
  IdempotencyHeadersSchema,
  InitiateBodySchema,
  InitiateResponseSchema,
  IntentIdParamsSchema,
  SlotUnavailableSchema,
} from '../../contract/booking.ts';
import type { Caller } from '../../domain/access/access.service.ts';
import type { ApiKeyRecord } from '../../domain/access/types.ts';
import type { BookingService } from '../../domain/booking/booking.service.ts';

export interface BookingRoutesOptions {
  booking: BookingService;
}

/** The access plugin runs first on every API route, so a caller is always set here. */
const callerOf = (request: FastifyRequest): Caller => request.caller!;

export const bookingRoutes: FastifyPluginAsyncTypebox<BookingRoutesOptions> = async (app, { booking }) => {
  app.post('/bookings/initiate', {
    config: { access: { scope: 'bookings:initiate', anonymousGroup: 'initiate', replayBeforeLimit: true } },
    schema: {
      operationId: 'initiateBooking',
      tags: ['Bookings'],
      summary: 'Hold a free slot for 15 minutes (a booking intent)',
      description:
        'Creates a booking intent for one of the lawyer\'s free slots: the slot is held for 15 minutes while the user opens `confirmation_url`, signs in, confirms and pays on the site. The API never charges anyone.\n\n' +
        'Send an `Idempotency-Key` to retry safely: the same key and body within 24 hours replay the original answer (with `Idempotent-Replayed: true`); the same key with another body is a 422; while the first request is still running, 409.\n\n' +
        'An unavailable slot (taken, past, too soon, outside the schedule, unknown lawyer) is a 404 with the same generic JSON body whatever the reason. Test keys run every check and create nothing (`booking_intent_id: null`, `test: true`).',
      headers: IdempotencyHeadersSchema,
      querystring: NoQuerySchema,
      body: InitiateBodySchema,
      response: {
        201: InitiateResponseSchema,
        404: SlotUnavailableSchema,
        ...problems(400, 401, 403, 409, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      // Over the hourly limit with an Idempotency-Key: the stored outcome if it is a replay, else the 429.
      const refusal = request.limitRefusal;
      const outcome = await booking.initiate(callerOf(request), request.body, request.headers['idempotency-key'], () => {
        if (refusal) throw refusal;
      });
      // The stored bytes are sent as they are (already serialised), so a replay is byte-identical.
      const raw = reply as unknown as FastifyReply;
      raw.code(outcome.status).headers(outcome.headers).type('application/json; charset=utf-8');
      if (outcome.replayed) raw.header('idempotent-replayed', 'true');
      return raw.send(outcome.body);
    },
  });

  app.get('/booking-intents/:intentId', {
    config: { access: { scope: 'bookings:read', keyRequired: true } },
    schema: {
      operationId: 'getBookingIntent',
      tags: ['Bookings'],
      summary: 'Poll a booking intent created with the calling key',
      description: 'Only intents created by the calling API key are visible; any other id is the same 404. A pending intent past `expires_at` reads as `expired`.',
      security: [{ bearerAuth: [] }],
      params: IntentIdParamsSchema,
      querystring: NoQuerySchema,
      response: { 200: BookingIntentSchema, ...problems(400, 401, 403, 404, 429) },
    },
    handler: async (request) => booking.getIntent((callerOf(request) as { key: ApiKeyRecord }).key.id, request.params.intentId),
  });
};
