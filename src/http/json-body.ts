/**
 * Sends domain answers that are often the very same object again (the directory hands out its
 * cached answers unchanged): each object is serialised with the route's response schema once,
 * and its bytes are reused for as long as the object lives. Answers must not be mutated after
 * they are returned; the directory never does.
 */
import type { FastifyReply } from 'fastify';

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
