import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuerySchema, problems } from '../../contract/common.ts';
import {
  AvailabilityQuerySchema,
  AvailabilityResponseSchema,
  LawyerIdParamsSchema,
  LawyerProfileSchema,
  ReviewsQuerySchema,
  ReviewsResponseSchema,
  SearchQuerySchema,
  SearchResponseSchema,
} from '../../contract/directory.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { sendJson } from '../json-body.ts';

export interface LawyerRoutesOptions {
  directory: DirectoryService;
}

export const lawyerRoutes: FastifyPluginAsyncTypebox<LawyerRoutesOptions> = async (app, { directory }) => {
  app.get('/lawyers/search', {
    config: { access: { scope: 'lawyers:read' } },
    schema: {
      operationId: 'searchLawyers',
      tags: ['Lawyers'],
      summary: 'Search verified, publicly listed lawyers',
      description: 'Filters combine with AND. Default sort is `rating` (best first; ties by review count, then id), so pages are stable.',
      querystring: SearchQuerySchema,
      response: { 200: SearchResponseSchema, ...problems(400, 401, 403, 429) },
    },
    handler: async (request, reply) => sendJson(reply, await directory.search(request.query)),
  });

  app.get('/lawyers/:lawyerId', {
    config: { access: { scope: 'lawyers:read' } },
    schema: {
      operationId: 'getLawyer',
      tags: ['Lawyers'],
      summary: "A lawyer's public profile",
      params: LawyerIdParamsSchema,
      querystring: NoQuerySchema,
      response: { 200: LawyerProfileSchema, ...problems(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => sendJson(reply, await directory.getProfile(request.params.lawyerId)),
  });

  app.get('/lawyers/:lawyerId/availability', {
    config: { access: { scope: 'availability:read', anonymousGroup: 'availability' } },
    schema: {
      operationId: 'getAvailability',
      tags: ['Lawyers'],
      summary: 'Consultation slots over at most 14 days',
      description: "Dates and times are wall-clock values in the lawyer's time zone (`timezone`); `starts_at`/`ends_at` give the same instants with their UTC offset. `start_date` defaults to today in that zone and `end_date` to start_date + 13 days. Slots that start within the minimum lead time, or are held or booked, read `available: false`. With the person's `languages` (additive), the answer says `languages_in_common`: an empty list means she speaks none of them.",
      params: LawyerIdParamsSchema,
      querystring: AvailabilityQuerySchema,
      response: { 200: AvailabilityResponseSchema, ...problems(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => sendJson(reply, await directory.availabilityFor(request.params.lawyerId, request.query)),
  });

  app.get('/lawyers/:lawyerId/reviews', {
    config: { access: { scope: 'reviews:read' } },
    schema: {
      operationId: 'getLawyerReviews',
      tags: ['Lawyers'],
      summary: 'Recent reviews from verified clients',
      params: LawyerIdParamsSchema,
      querystring: ReviewsQuerySchema,
      response: { 200: ReviewsResponseSchema, ...problems(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => sendJson(reply, await directory.getReviews(request.params.lawyerId, request.query.limit)),
  });
};
