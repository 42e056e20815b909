import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../schema.ts';

/** A database or a transaction: repositories accept either, services own transactions. */
export type Executor = Kysely<DB> | Transaction<DB>;
