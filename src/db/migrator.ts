import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
import type { Database } from './database.ts';
import * as m0001 from './migrations/0001-directory.ts';
import * as m0002 from './migrations/0002-accounts.ts';
import * as m0003 from './migrations/0003-request-log.ts';
import * as m0004 from './migrations/0004-booking-intents.ts';
import * as m0005 from './migrations/0005-webhooks.ts';
import * as m0007 from './migrations/0007-lawyer-changes.ts';
import * as m0008 from './migrations/0008-request-log-key-index.ts';
import * as m0009 from './migrations/0009-sessions.ts';
import * as m0010 from './migrations/0010-payments.ts';
import * as m0011 from './migrations/0011-mail.ts';
import * as m0012 from './migrations/0012-operators.ts';
import * as m0013 from './migrations/0013-request-log-owner-index.ts';
import * as m0014 from './migrations/0014-firm-invitations.ts';
import * as m0015 from './migrations/0015-operator-audit.ts';
import * as m0016 from './migrations/0016-passkeys.ts';
import * as m0017 from './migrations/0017-usage-breakdown.ts';
import * as m0018 from './migrations/0018-oauth.ts';
import * as m0019 from './migrations/0019-retention.ts';
import * as m0020 from './migrations/0020-email-normal-form.ts';
import * as m0023 from './migrations/0023-request-log-query.ts';
import * as m0024 from './migrations/0024-lawyers-side.ts';
import * as m0026 from './migrations/0026-contact-messages.ts';
import * as m0027 from './migrations/0027-wave3-shared.ts';
import * as m0028 from './migrations/0028-slot-cells.ts';
import * as m0029 from './migrations/0029-lawyer-portal.ts';
import * as m0030 from './migrations/0030-lawyer-booking-feeds.ts';
import * as m0031 from './migrations/0031-calendar-feeds.ts';
import * as m0032 from './migrations/0032-earnings-connect.ts';
import * as m0033 from './migrations/0033-after-booking.ts';
import * as m0034 from './migrations/0034-wave4-shared.ts';
import * as m0036 from './migrations/0036-publishable-keys.ts';
import * as m0037 from './migrations/0037-lawyer-holidays-notices.ts';

/** Every migration, in order. Listed in code so that the set is the same wherever it runs. */
const migrations: Record<string, Migration> = {
  '0001-directory': m0001,
  '0002-accounts': m0002,
  '0003-request-log': m0003,
  '0004-booking-intents': m0004,
  '0005-webhooks': m0005,
  '0007-lawyer-changes': m0007,
  '0008-request-log-key-index': m0008,
  '0009-sessions': m0009,
  '0010-payments': m0010,
  '0011-mail': m0011,
  '0012-operators': m0012,
  '0013-request-log-owner-index': m0013,
  '0014-firm-invitations': m0014,
  '0015-operator-audit': m0015,
  '0016-passkeys': m0016,
  '0017-usage-breakdown': m0017,
  '0018-oauth': m0018,
  '0019-retention': m0019,
  '0020-email-normal-form': m0020,
  '0023-request-log-query': m0023,
  '0024-lawyers-side': m0024,
  '0026-contact-messages': m0026,
  '0027-wave3-shared': m0027,
  '0028-slot-cells': m0028,
  '0029-lawyer-portal': m0029,
  '0030-lawyer-booking-feeds': m0030,
  '0031-calendar-feeds': m0031,
  '0032-earnings-connect': m0032,
  '0033-after-booking': m0033,
  '0034-wave4-shared': m0034,
  '0036-publishable-keys': m0036,
  '0037-lawyer-holidays-notices': m0037,
};

/** Brings the schema to the latest version; safe to run concurrently from several processes on PostgreSQL. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
