/**
 * Retention: what the database keeps, and for how long. Every purge deletes what is past its
 * window in bounded batches (drainInBatches), through an index, and is safe to run in several
 * processes at once (a delete of rows already deleted deletes nothing). The windows are listed
 * for operators in docs/operations.md ("Retention").
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { deleteLawyerChangesBefore } from '../../db/repositories/reference.repository.ts';
import { deleteRequestsBefore } from '../../db/repositories/request-log.repository.ts';
import { purgeIdempotencyKeysBefore } from '../../db/repositories/idempotency.repository.ts';
import { deleteOldMails } from '../../db/repositories/mail.repository.ts';
import { purgeEndedIdentityRows } from '../../db/repositories/identity.repository.ts';
import { purgePasskeyChallenges } from '../../db/repositories/passkey.repository.ts';
import { deleteExpiredOAuthRecords } from '../../db/repositories/oauth.repository.ts';
import {
  USAGE_TABLES,
  deleteExpiredFirmInvitations,
  deletePublishedOutboxEvents,
  deleteSettledWebhookMessages,
  deleteUsageDaysBefore,
} from '../../db/repositories/retention.repository.ts';
import { REPLAY_WINDOW_MS } from '../booking/idempotency.ts';
import { LAWYER_CHANGES_RETENTION_MS } from '../directory/reference.service.ts';
import { endedIdentityCutoffs } from '../identity/session.service.ts';
import { drainInBatches, type BatchRun } from './batches.ts';
import { deleteContactMessagesBefore } from '../../db/repositories/contact.repository.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Passkey challenges live minutes; an hour past expiry none can still be answered. */
const PASSKEY_CHALLENGE_GRACE_MS = HOUR_MS;
/** Invitation links last 7 days; a closed link still says why (accepted, revoked, expired) for 30 more. */
const FIRM_INVITATION_GRACE_DAYS = 30;
/** Contact-form messages: a year, for follow-ups and complaints about the same matter (docs/site.md#contact). */
export const CONTACT_RETENTION_DAYS = 365;

/** The name of each purge, in the order they run. */
export const PURGES = [
  'request_log',
  'lawyer_changes',
  'idempotency_keys',
  'mail_outbox',
  'webhook_messages',
  'outbox_events',
  'usage_daily',
  'sessions',
  'passkey_challenges',
  'oauth_records',
  'firm_invitations',
  'contact_messages',
] as const;
export type PurgeName = (typeof PURGES)[number];

/** What one purge did. */
export interface PurgeResult extends BatchRun {
  name: PurgeName;
  /** Rows older than this (or ended before it) were deleted. */
  cutoff: string;
}

interface Purge {
  cutoff: string;
  step(limit: number): Promise<number>;
}

export interface RetentionDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'requestLogRetentionDays' | 'webhookRetentionDays' | 'mailRetentionDays' | 'usageRetentionDays' | 'retentionBatchSize' | 'sessionIdleDays'>;
}

export class RetentionService {
  constructor(private readonly deps: RetentionDeps) {}

  /**
   * Runs the purges (all, or `only` these) one after another and reports each. A purge that
   * fails does not stop the others; its error is reported in `failed`.
   */
  async run(options: { only?: readonly PurgeName[]; batchSize?: number } = {}): Promise<{ results: PurgeResult[]; failed: Array<{ name: PurgeName; error: unknown }> }> {
    const batchSize = options.batchSize ?? this.deps.config.retentionBatchSize;
    const results: PurgeResult[] = [];
    const failed: Array<{ name: PurgeName; error: unknown }> = [];
    for (const name of PURGES) {
      if (options.only && !options.only.includes(name)) continue;
      try {
        const purge = this.purge(name);
        results.push({ name, cutoff: purge.cutoff, ...(await drainInBatches(purge.step, batchSize)) });
      } catch (error) {
        failed.push({ name, error });
      }
    }
    return { results, failed };
  }

  /** One purge with its cutoff computed now (fixed for the whole run, so the batches end). */
  private purge(name: PurgeName): Purge {
    const { database, clock, config } = this.deps;
    const db = database.db;
    const now = clock.now().getTime();
    const before = (ms: number) => new Date(now - ms).toISOString();
    switch (name) {
      case 'request_log': {
        const cutoff = before(config.requestLogRetentionDays * DAY_MS);
        return { cutoff, step: (limit) => deleteRequestsBefore(db, cutoff, limit) };
      }
      case 'lawyer_changes': {
        const cutoff = before(LAWYER_CHANGES_RETENTION_MS);
        return { cutoff, step: (limit) => deleteLawyerChangesBefore(db, cutoff, limit) };
      }
      case 'idempotency_keys': {
        const cutoff = before(REPLAY_WINDOW_MS);
        return { cutoff, step: (limit) => purgeIdempotencyKeysBefore(db, cutoff, limit) };
      }
      case 'mail_outbox': {
        const cutoff = before(config.mailRetentionDays * DAY_MS);
        return { cutoff, step: (limit) => deleteOldMails(db, cutoff, limit) };
      }
      case 'webhook_messages': {
        const cutoff = before(config.webhookRetentionDays * DAY_MS);
        return { cutoff, step: (limit) => deleteSettledWebhookMessages(db, database.dialect, cutoff, limit) };
      }
      case 'outbox_events': {
        const cutoff = before(config.webhookRetentionDays * DAY_MS);
        return { cutoff, step: (limit) => deletePublishedOutboxEvents(db, cutoff, limit) };
      }
      case 'usage_daily': {
        // Whole UTC days: the day `usageRetentionDays` ago is the oldest kept.
        const cutoff = before((config.usageRetentionDays - 1) * DAY_MS).slice(0, 10);
        // The four aggregates in turn: a batch deletes at most `limit` rows in all, table after
        // table, so it comes back short only when every table is done.
        return {
          cutoff,
          step: async (limit) => {
            let deleted = 0;
            for (const table of USAGE_TABLES) {
              if (deleted >= limit) break;
              deleted += await deleteUsageDaysBefore(db, table, cutoff, limit - deleted);
            }
            return deleted;
          },
        };
      }
      case 'sessions': {
        const cutoffs = endedIdentityCutoffs(new Date(now), config.sessionIdleDays);
        return { cutoff: cutoffs.endedBefore, step: (limit) => purgeEndedIdentityRows(db, cutoffs, limit) };
      }
      case 'passkey_challenges': {
        const cutoff = before(PASSKEY_CHALLENGE_GRACE_MS);
        return { cutoff, step: (limit) => purgePasskeyChallenges(db, cutoff, limit) };
      }
      case 'oauth_records': {
        const cutoff = before(0);
        return { cutoff, step: (limit) => deleteExpiredOAuthRecords(db, cutoff, limit) };
      }
      case 'firm_invitations': {
        const cutoff = before(FIRM_INVITATION_GRACE_DAYS * DAY_MS);
        return { cutoff, step: (limit) => deleteExpiredFirmInvitations(db, cutoff, limit) };
      }
      case 'contact_messages': {
        const cutoff = before(CONTACT_RETENTION_DAYS * DAY_MS);
        return { cutoff, step: (limit) => deleteContactMessagesBefore(db, cutoff, limit) };
      }
    }
  }
}
