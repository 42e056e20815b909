// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provinces')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('autonomous_community', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cities')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('province_code', 'text', (c) => c.notNull().references('provinces.code'))
    .execute();

  await db.schema
    .createTable('practice_areas')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('parent_slug', 'text', (c) => c.references('practice_areas.slug'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('lawyers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('city_slug', 'text', (c) => c.notNull().references('cities.slug'))
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('consultation_fee_cents', 'integer', (c) => c.notNull().check(sql`consultation_fee_cents >= 0`))
    .addColumn('platform_commission_percent', 'integer', (c) =>
      c.notNull().check(sql`platform_commission_percent between 0 and 100`),
    )
    .addColumn('bio', 'text')
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_avg', 'double precision')
    .addColumn('rating_key', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('review_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_bookings', 'integer')
    .addColumn('practice_areas_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('languages_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Search reads only public lawyers (verified and listed): partial indexes, one per sort order,
  // with and without the city filter, so a page is read in index order and never sorted whole.
  const publicOnly = sql<boolean>`verified = 1 and listed = 1`;
  const sortIndexes: Array<[string, string[]]> = [
    ['lawyers_public_rating', ['rating_key desc', 'review_count desc', 'id']],
    ['lawyers_public_reviews', ['review_count desc', 'rating_key desc', 'id']],
    ['lawyers_public_price_asc', ['consultation_fee_cents', 'id']],
    ['lawyers_public_price_desc', ['consultation_fee_cents desc', 'id']],
    ['lawyers_public_city_rating', ['city_slug', 'rating_key desc', 'review_count desc', 'id']],
    ['lawyers_public_city_reviews', ['city_slug', 'review_count desc', 'rating_key desc', 'id']],
    ['lawyers_public_city_price_asc', ['city_slug', 'consultation_fee_cents', 'id']],
    ['lawyers_public_city_price_desc', ['city_slug', 'consultation_fee_cents desc', 'id']],
  ];
  for (const [name, columns] of sortIndexes) {
    await db.schema.createIndex(name).on('lawyers').columns(columns).where(publicOnly).execute();
  }

  await db.schema
    .createTable('lawyer_practice_areas')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('area_slug', 'text', (c) => c.notNull().references('practice_areas.slug'))
    .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('lawyer_practice_areas_pk', ['lawyer_id', 'area_slug'])
    .execute();
  await db.schema.createIndex('lawyer_practice_areas_area').on('lawyer_practice_areas').columns(['area_slug', 'lawyer_id']).execute();

  await db.schema
    .createTable('lawyer_languages')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lawyer_languages_pk', ['lawyer_id', 'language'])
    .execute();
  await db.schema.createIndex('lawyer_languages_language').on('lawyer_languages').columns(['language', 'lawyer_id']).execute();

  await db.schema
    .createTable('bar_memberships')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('bar_name', 'text', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('bar_memberships_pk', ['lawyer_id', 'bar_name'])
    .execute();

  await db.schema
    .createTable('lawyer_weekly_hours')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('weekday', 'integer', (c) => c.notNull().check(sql`weekday between 1 and 7`))
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('slot_minutes', 'integer', (c) => c.notNull().check(sql`slot_minutes in (15, 20, 30, 45, 60, 90, 120)`))
    .addCheckConstraint('lawyer_weekly_hours_order', sql`start_time < end_time`)
    .execute();
  await db.schema.createIndex('lawyer_weekly_hours_lawyer').on('lawyer_weekly_hours').columns(['lawyer_id', 'weekday']).execute();

  await db.schema
    .createTable('lawyer_date_exceptions')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text')
    .addColumn('end_time', 'text')
    .addColumn('slot_minutes', 'integer')
    .execute();
  await db.schema.createIndex('lawyer_date_exceptions_lawyer').on('lawyer_date_exceptions').columns(['lawyer_id', 'date']).execute();

  await db.schema
    .createTable('reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('rating', 'integer', (c) => c.notNull().check(sql`rating between 1 and 5`))
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text')
    .addColumn('verified_client', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('reviews_lawyer_recent').on('reviews').columns(['lawyer_id', 'created_at desc']).execute();

  // One row per occupied slot. The primary key is what makes a double booking impossible:
  // a second hold on the same (lawyer, date, start) cannot be inserted, whatever the timing.
  await db.schema
    .createTable('slot_holds')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('slot_date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('held', 'booked')`))
    .addColumn('booking_intent_id', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('slot_holds_pk', ['lawyer_id', 'slot_date', 'start_time'])
    .execute();

  await db.schema
    .createTable('directory_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.insertInto('directory_state').values({ id: 1, version: 1, updated_at: new Date(0).toISOString() }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'directory_state', 'slot_holds', 'reviews', 'lawyer_date_exceptions', 'lawyer_weekly_hours',
    'bar_memberships', 'lawyer_languages', 'lawyer_practice_areas', 'lawyers', 'practice_areas', 'cities', 'provinces',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
