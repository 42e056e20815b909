import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NoQuerySchema, problems } from '../../contract/common.ts';
import { CitiesResponseSchema, PracticeAreasResponseSchema } from '../../contract/directory.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { CacheableResponse } from '../cacheable.ts';

export interface ReferenceRoutesOptions {
  directory: DirectoryService;
}

const notModified = { 304: Type.Null({ description: 'Not modified (If-None-Match matched the ETag)' }) };

export const referenceRoutes: FastifyPluginAsyncTypebox<ReferenceRoutesOptions> = async (app, { directory }) => {
  const practiceAreas = new CacheableResponse();
  const cities = new CacheableResponse();

  app.get('/practice-areas', {
    config: { access: { scope: 'reference:read' } },
    schema: {
      operationId: 'listPracticeAreas',
      tags: ['Reference'],
      summary: 'The practice-area hierarchy',
      description: 'Each `slug` is a value for the `practice_area` search filter; a parent area matches lawyers in its sub-areas. Cacheable for 24 hours (ETag).',
      querystring: NoQuerySchema,
      response: { 200: PracticeAreasResponseSchema, ...notModified, ...problems(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const ref = await directory.reference();
      return practiceAreas.send(request, reply, String(ref.version), () => ({ practice_areas: ref.practiceAreaTree }));
    },
  });

  app.get('/cities', {
    config: { access: { scope: 'reference:read' } },
    schema: {
      operationId: 'listCities',
      tags: ['Reference'],
      summary: "Spain's provinces and the cities served",
      description: 'Each city `slug` (or its name) is a value for the `city` search filter. Cacheable for 24 hours (ETag).',
      querystring: NoQuerySchema,
      response: { 200: CitiesResponseSchema, ...notModified, ...problems(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const ref = await directory.reference();
      return cities.send(request, reply, String(ref.version), () => ({ provinces: ref.provinces, cities: ref.cities }));
    },
  });
};
