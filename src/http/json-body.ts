/**
 * JSON bodies in and out.
 *
 * In: Fastify's own JSON parser (prototype poisoning refused), then the nesting bound
 * (MAX_JSON_DEPTH), so no validator ever walks a body deeper than that.
 *
 * Out: sends domain answers that are often the very same object again (the directory hands out its
 * cached answers unchanged): each object is serialised with the route's response schema once,
 * and its bytes are reused for as long as the object lives. Answers must not be mutated after
 * they are returned; the directory never does.
 */
import type { FastifyBodyParser, FastifyReply } from 'fastify';
import { invalidRequest } from '../domain/errors.ts';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../domain/validation.ts';

/** The refusal of a body nested too deeply: a 400 invalid_request naming /body. */
export const tooDeep = () =>
  invalidRequest(`The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, [{ pointer: '/body', detail: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }]);

/** A JSON body parser: `parse` (Fastify's), then the depth bound. */
export function depthBoundedJson(parse: FastifyBodyParser<string>): FastifyBodyParser<string> {
  return (request, body, done) =>
    parse(request, body, (err, value) => {
      if (err) done(err, undefined);
      else if (exceedsJsonDepth(value)) done(tooDeep(), undefined);
      else done(null, value);
    });
}

const bodies = new WeakMap<object, Buffer>();

export function sendJson(reply: FastifyReply, payload: object): FastifyReply {
  let body = bodies.get(payload);
  if (body === undefined) {
    const serialised = reply.serialize(payload);
    body = typeof serialised === 'string' ? Buffer.from(serialised) : Buffer.from(serialised as ArrayBuffer);
    bodies.set(payload, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
