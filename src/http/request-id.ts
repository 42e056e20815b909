import { randomBytes } from 'node:crypto';

/** Random hex drawn in bulk: one randomBytes call per POOL_IDS ids instead of a UUID each. */
const RANDOM_HEX_CHARS = 20;
const POOL_IDS = 512;
let pool = '';
let poolAt = 0;
let lastMs = -1;
let lastPrefix = '';

/**
 * A request id: `req_` and 32 hex characters, unique across processes: the time in ms (12 hex)
 * and 80 random bits. Time-ordered, so request-log rows are appended to the end of their primary
 * key index rather than scattered across it: with random ids every row of a flush dirtied a page
 * of its own (measured: a fifth of /practice-areas' CPU time went to the request-log write).
 * Every request gets one, so it is built cheaply: the random part is a slice of a pool of random
 * hex (crypto-strength, as randomUUID's), and the time part is reused within a millisecond.
 */
export const newRequestId = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastPrefix = `req_${ms.toString(16).padStart(12, '0')}`;
  }
  if (poolAt === pool.length) {
    pool = randomBytes((RANDOM_HEX_CHARS / 2) * POOL_IDS).toString('hex');
    poolAt = 0;
  }
  const random = pool.slice(poolAt, poolAt + RANDOM_HEX_CHARS);
  poolAt += RANDOM_HEX_CHARS;
  return lastPrefix + random;
};
