/** /docs/errors and /docs/errors/{code}: the pages problem documents' `type` links to. */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { Config } from '../../config.ts';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../domain/errors.ts';
import { sendProblem } from '../../http/problem.ts';
import { ErrorCodePage, ErrorCodesPage } from './docs.pages.tsx';

export function docsArea(config: Config) {
  return async (site: FastifyInstance) => {
    site.get('/docs/errors', { schema: { hide: true } }, async (request, reply) => reply.page(h(ErrorCodesPage, { ctx: request.site })));
    site.get<{ Params: { code: string } }>('/docs/errors/:code', { schema: { hide: true } }, async (request, reply) => {
      const code = request.params.code;
      if (!Object.hasOwn(ERROR_CODES, code)) {
        // A machine following a bad `type` link gets a problem document; a person, the 404 page.
        if (!(request.headers.accept ?? '').includes('text/html')) {
          return sendProblem(reply, config.siteUrl, 'not_found', `There is no such error code. All codes are listed at ${config.siteUrl}/docs/errors.`);
        }
        throw new DomainError('not_found', 'no such error code');
      }
      return reply.page(h(ErrorCodePage, { ctx: request.site, code: code as ErrorCode, siteUrl: config.siteUrl }));
    });
  };
}
