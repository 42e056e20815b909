/**
 * Client addresses for the load. The service limits anonymous callers per client address, as
 * it would behind a reverse proxy; so the bench starts it with TRUST_PROXY=127.0.0.1 and
 * spreads requests over a fixed population of 65,536 addresses in X-Forwarded-For, cycled in
 * turn, so no address nears its per-minute limit (at 10,000 req/s each is seen about 9 times a
 * minute) and the limiter's memory stays bounded, like a large but finite client population.
 */
const POPULATION = 65_536;
let next = 0;

export const FORWARDED_FOR = 'x-forwarded-for';

/** The next client address: 10.0.0.0 … 10.0.255.255, then round again. */
export function nextClientAddress(): string {
  const n = next++ % POPULATION;
  return `10.0.${n >> 8}.${n & 255}`;
}
