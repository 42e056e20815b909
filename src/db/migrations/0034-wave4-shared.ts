// Frozen migration: never import application code here.
// Wave 4's shared schema (issues 25 and 26; DESIGN.md §13), laid down once so that the parts built
// in parallel add only code:
// - `user_languages`: the languages a person reads, in their order of preference (ISO 639-1),
//   seeded from the site language at sign-up and edited under Account. `users.name` (0002) is the
//   name a lawyer sees; it is asked once, never taken from the email address.
// - on the booking intent (while pending) and the consultation (copied on confirmation): the
//   person's name and languages as they were when they booked (JSON array of ISO 639-1 codes), how
//   they answered a language mismatch ('interpreter' | 'spanish'; null when they share a language
//   with the lawyer), and the note's detected language (a label only, ISO 639-1; null when it
//   cannot be told).
// - on the consultation: how many times the person moved it (capped; docs/booking-intents.md).
// - on the lawyer: how she wants to be named ('female' → abogada, 'male' → abogado, 'neutral' or
//   null → neutral wording) and whether her bookings feed may carry phone numbers and notes
//   (default off: the feed URL is a secret, but calendars get shared).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_languages')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_languages_pk', ['user_id', 'language'])
    .execute();

  for (const table of ['booking_intents', 'consultations']) {
    await db.schema.alterTable(table).addColumn('person_name', 'text').execute();
    await db.schema.alterTable(table).addColumn('person_languages', 'text').execute();
    await db.schema
      .alterTable(table)
      .addColumn('language_ack', 'text', (c) => c.check(sql`language_ack is null or language_ack in ('interpreter', 'spanish')`))
      .execute();
    await db.schema.alterTable(table).addColumn('note_language', 'text').execute();
  }
  await db.schema.alterTable('consultations').addColumn('move_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .alterTable('lawyers')
    .addColumn('form_of_address', 'text', (c) => c.check(sql`form_of_address is null or form_of_address in ('female', 'male', 'neutral')`))
    .execute();
  await db.schema.alterTable('lawyers').addColumn('feed_private_details', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('lawyers').dropColumn('feed_private_details').execute();
  await db.schema.alterTable('lawyers').dropColumn('form_of_address').execute();
  await db.schema.alterTable('consultations').dropColumn('move_count').execute();
  for (const table of ['consultations', 'booking_intents']) {
    for (const column of ['note_language', 'language_ack', 'person_languages', 'person_name']) {
      await db.schema.alterTable(table).dropColumn(column).execute();
    }
  }
  await db.schema.dropTable('user_languages').ifExists().execute();
}
