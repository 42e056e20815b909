import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { NoQuerySchema, problems } from '../../contract/common.ts';
import { KeyResponseSchema, UsageResponseSchema } from '../../contract/access.ts';
import type { UsageService } from '../../domain/access/usage.service.ts';
import type { ApiKeyRecord } from '../../domain/access/types.ts';

export interface KeyRoutesOptions {
  usage: UsageService;
}

/** The access plugin guarantees a keyed caller on `keyRequired` routes. */
const callerKey = (request: FastifyRequest): ApiKeyRecord => (request.caller as { key: ApiKeyRecord }).key;
const diagnostic = { access: { keyRequired: true, diagnostic: true } };
const security = [{ bearerAuth: [] }];

export const keyRoutes: FastifyPluginAsyncTypebox<KeyRoutesOptions> = async (app, { usage }) => {
  app.get('/key', {
    config: diagnostic,
    schema: {
      operationId: 'getCallingKey',
      tags: ['Account'],
      summary: 'Describe the calling API key',
      description: 'Mode, tier, scopes, limits, expiry and suspension of the key that signs the request — never its secret — so a client can diagnose its own 401, 403 and 429 answers. Works for expired and suspended keys, and while the key\'s rate-limit windows are exhausted (it has its own limit of 60 requests a minute).',
      security,
      querystring: NoQuerySchema,
      response: { 200: KeyResponseSchema, ...problems(401, 403, 429) },
    },
    handler: async (request) => usage.describe(callerKey(request)),
  });

  app.get('/usage', {
    config: diagnostic,
    schema: {
      operationId: 'getUsage',
      tags: ['Account'],
      summary: "The calling key's rate-limit windows and last 30 days of usage",
      security,
      querystring: NoQuerySchema,
      response: { 200: UsageResponseSchema, ...problems(401, 403, 429) },
    },
    handler: async (request) => usage.usage(callerKey(request)),
  });
};
