// Frozen migration: never import application code here.
// The mail outbox and lawyers' contact email.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars */
export async function up(db: Kysely<any>): Promise<void> {}

export async function down(db: Kysely<any>): Promise<void> {}
