/**
 * Retention purges on both databases: each deletes exactly what is past its window and nothing
 * else (pending webhook messages, queued mail, unpublished events and anything recent stay), in
 * bounded batches (3 rows at a time here), driven by the injected clock.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { sweepRequestLog } from '../../src/domain/access/request-log.ts';
import { drainInBatches } from '../../src/domain/operations/batches.ts';
import { PURGES, RetentionService, type PurgeName } from '../../src/domain/operations/retention.service.ts';
import { startJobs } from '../../src/jobs/jobs.ts';
import { createTestContext } from '../support/app.ts';
import { waitFor } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

const NOW = '2026-11-23T08:00:00.000Z';
const HOUR = 3_600_000;
const DAY = 86_400_000;

const ago = (ms: number, from = NOW) => new Date(new Date(from).getTime() - ms).toISOString();
const dayAgo = (days: number) => ago(days * DAY).slice(0, 10);

const TABLES = [
  'webhook_attempts',
  'webhook_messages',
  'webhook_endpoints',
  'outbox_events',
  'request_log',
  'lawyer_changes',
  'idempotency_keys',
  'mail_outbox',
  'usage_daily',
  'usage_daily_errors',
  'usage_daily_routes',
  'usage_daily_latency',
  'sessions',
  'sign_in_challenges',
  'passkey_challenges',
  'oauth_records',
  'firm_invitations',
] as const;

for (const target of databaseTargets()) {
  describe(`retention purges (${target.name})`, () => {
    let t: TestDatabase;
    let clock: ManualClock;
    let userId: string;
    let firmId: string;
    const config = loadConfig({ LOG_LEVEL: 'silent' });

    before(async () => {
      t = await target.create();
      userId = randomUUID();
      firmId = randomUUID();
      await t.database.db.insertInto('users').values({ id: userId, email: 'owner@example.com', name: null, created_at: NOW, locale: 'en' }).execute();
      await t.database.db.insertInto('firms').values({ id: firmId, slug: 'firm', name: 'Firm', created_at: NOW }).execute();
    });
    after(() => t.drop());
    beforeEach(async () => {
      clock = new ManualClock(NOW);
      for (const table of TABLES) await t.database.db.deleteFrom(table).execute();
    });

    const retention = () => new RetentionService({ database: t.database, clock, config });
    async function runOne(name: PurgeName, batchSize = 3) {
      const { results, failed } = await retention().run({ only: [name], batchSize });
      assert.deepEqual(failed, []);
      assert.equal(results.length, 1);
      return results[0]!;
    }
    const ids = async (table: 'webhook_messages' | 'webhook_attempts' | 'outbox_events' | 'mail_outbox' | 'firm_invitations' | 'sessions' | 'sign_in_challenges' | 'passkey_challenges') =>
      (await t.database.db.selectFrom(table).select('id').execute()).map((r) => r.id).sort();
    const count = async (table: (typeof TABLES)[number]) => Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    async function endpoint(): Promise<string> {
      const id = `ep_${randomUUID()}`;
      await t.database.db
        .insertInto('webhook_endpoints')
        .values({ id, owner_type: 'user', owner_id: userId, url: 'https://hooks.example.com/x', event_types: null, secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, disabled_at: null, disabled_cause: null, disabled_reason: null, consecutive_failures: 0, created_by_user_id: null, created_at: NOW, updated_at: NOW })
        .execute();
      return id;
    }

    async function message(endpointId: string, id: string, status: 'pending' | 'delivered' | 'dead', lastAttemptAt: string | null, attempts: number) {
      await t.database.db
        .insertInto('webhook_messages')
        .values({ id, endpoint_id: endpointId, event_id: `evt_${id}`, event_type: 'booking_intent.confirmed', payload: '{}', status, attempts, next_attempt_at: status === 'pending' ? NOW : null, locked_until: null, claim_token: null, created_at: ago(90 * DAY), last_attempt_at: lastAttemptAt, delivered_at: status === 'delivered' ? lastAttemptAt : null })
        .execute();
      for (let a = 1; a <= attempts; a++) {
        await t.database.db
          .insertInto('webhook_attempts')
          .values({ id: `${id}_a${a}`, message_id: id, endpoint_id: endpointId, attempt: a, attempted_at: lastAttemptAt ?? NOW, duration_ms: 5, status_code: 500, success: 0, error: null, response_body: null })
          .execute();
      }
    }

    it('webhook messages: delivered and dead ones past the window go with their attempts; pending and recent ones stay', async () => {
      const ep = await endpoint();
      const deleted: string[] = [];
      for (let i = 0; i < 5; i++) {
        await message(ep, `msg_old_delivered_${i}`, 'delivered', ago(31 * DAY), 2);
        deleted.push(`msg_old_delivered_${i}`);
      }
      for (let i = 0; i < 3; i++) {
        await message(ep, `msg_old_dead_${i}`, 'dead', ago(45 * DAY), 6);
        deleted.push(`msg_old_dead_${i}`);
      }
      await message(ep, 'msg_recent_delivered', 'delivered', ago(29 * DAY), 1);
      await message(ep, 'msg_recent_dead', 'dead', ago(30 * DAY - 1000), 6);
      // Pending, however old its last attempt (a disabled endpoint's backlog waits for re-enabling).
      await message(ep, 'msg_old_pending', 'pending', ago(200 * DAY), 3);
      await message(ep, 'msg_never_tried', 'pending', null, 0);

      const r = await runOne('webhook_messages');
      assert.equal(r.deleted, 8);
      assert.equal(r.batches, 3, '3 + 3 + 2');
      assert.equal(r.cutoff, ago(30 * DAY));
      assert.deepEqual(await ids('webhook_messages'), ['msg_never_tried', 'msg_old_pending', 'msg_recent_dead', 'msg_recent_delivered']);
      const attempts = await t.database.db.selectFrom('webhook_attempts').select('message_id').execute();
      assert.equal(attempts.length, 1 + 6 + 3);
      assert.ok(attempts.every((a) => !deleted.includes(a.message_id)), 'no attempt of a deleted message is left');

      // A day later nothing new is due; 2 more days and the recent ones are past the window too.
      clock.advance(DAY / 2);
      assert.equal((await runOne('webhook_messages')).deleted, 1, 'the dead one, 30 days after its last attempt');
      clock.advance(2 * DAY);
      assert.equal((await runOne('webhook_messages')).deleted, 1);
      assert.deepEqual(await ids('webhook_messages'), ['msg_never_tried', 'msg_old_pending']);
      assert.equal(await count('webhook_attempts'), 3);
    });

    it('webhook messages: the window is WEBHOOK_RETENTION_DAYS', async () => {
      const ep = await endpoint();
      await message(ep, 'msg_8_days', 'delivered', ago(8 * DAY), 1);
      await message(ep, 'msg_6_days', 'delivered', ago(6 * DAY), 1);
      const short = loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_RETENTION_DAYS: '7' });
      const { results } = await new RetentionService({ database: t.database, clock, config: short }).run({ only: ['webhook_messages'] });
      assert.equal(results[0]!.deleted, 1);
      assert.deepEqual(await ids('webhook_messages'), ['msg_6_days']);
    });

    it('outbox events: published ones past the window go; unpublished ones stay however old', async () => {
      const event = (id: string, createdAt: string, publishedAt: string | null) => ({
        id,
        type: 'booking_intent.expired',
        booking_intent_id: `bi_${id}`,
        key_id: 'key',
        owner_type: 'user',
        owner_id: userId,
        data: '{}',
        created_at: createdAt,
        published_at: publishedAt,
      });
      await t.database.db
        .insertInto('outbox_events')
        .values([
          ...[1, 2, 3, 4].map((i) => event(`old_${i}`, ago(40 * DAY), ago(40 * DAY))),
          event('recent', ago(40 * DAY), ago(10 * DAY)),
          event('unpublished_1', ago(90 * DAY), null),
          event('unpublished_2', ago(90 * DAY), null),
        ])
        .execute();
      const r = await runOne('outbox_events');
      assert.deepEqual([r.deleted, r.batches], [4, 2]);
      assert.deepEqual(await ids('outbox_events'), ['recent', 'unpublished_1', 'unpublished_2']);
    });

    it('request log: entries older than REQUEST_LOG_RETENTION_DAYS, in batches (also through sweepRequestLog)', async () => {
      const entry = (id: string, at: string) => ({ request_id: id, at, key_id: null, owner_type: null, owner_id: null, test: 0, method: 'GET', route: '/api/v1/lawyers', path: '/api/v1/lawyers', status: 200, duration_ms: 1, client_ip: '127.0.0.1', error_code: null });
      const rows = [];
      for (let i = 0; i < 7; i++) rows.push(entry(`req_old_${i}`, ago(30 * DAY + (i + 1) * 1000)));
      for (let i = 0; i < 3; i++) rows.push(entry(`req_new_${i}`, ago(29 * DAY)));
      await t.database.db.insertInto('request_log').values(rows).execute();
      const r = await runOne('request_log');
      assert.deepEqual([r.deleted, r.batches], [7, 3]);
      assert.equal(await count('request_log'), 3);
      // The function the rest of the code calls is bounded the same way.
      clock.advance(2 * DAY);
      assert.equal(await sweepRequestLog(t.database, clock, 30, 2), 3);
      assert.equal(await count('request_log'), 0);
    });

    it('idempotency records: 24 hours (the spec\'s replay window), whatever their state', async () => {
      const rec = (key: string, createdAt: string, state = 'completed') => ({ scope: 'key:k', key, fingerprint: 'f', state, locked_until: null, response_status: 201, response_body: '{}', response_headers: '{}', created_at: createdAt });
      await t.database.db
        .insertInto('idempotency_keys')
        .values([rec('a', ago(25 * HOUR)), rec('b', ago(24 * HOUR + 1)), rec('c', ago(48 * HOUR), 'in_progress'), rec('d', ago(24 * HOUR)), rec('e', ago(HOUR))])
        .execute();
      const r = await runOne('idempotency_keys', 2);
      assert.deepEqual([r.deleted, r.batches], [3, 2]);
      const left = (await t.database.db.selectFrom('idempotency_keys').select('key').execute()).map((x) => x.key).sort();
      assert.deepEqual(left, ['d', 'e'], 'exactly 24 h old is still inside the window');
    });

    it('mail outbox: sent, local and failed mail past MAIL_RETENTION_DAYS; queued mail stays', async () => {
      const mail = (id: string, status: string, createdAt: string) => ({ id, kind: 'test', recipient: 'a@example.com', subject: 's', text: 't', html: null, attachments: '[]', sensitive: 0, status, attempts: 0, next_attempt_at: status === 'queued' ? NOW : null, locked_until: null, claim_token: null, last_error: null, created_at: createdAt, sent_at: null, erased_at: null });
      await t.database.db
        .insertInto('mail_outbox')
        .values([mail('m_sent', 'sent', ago(31 * DAY)), mail('m_local', 'local', ago(31 * DAY)), mail('m_failed', 'failed', ago(60 * DAY)), mail('m_queued', 'queued', ago(60 * DAY)), mail('m_new', 'sent', ago(29 * DAY))])
        .execute();
      assert.equal((await runOne('mail_outbox')).deleted, 3);
      assert.deepEqual(await ids('mail_outbox'), ['m_new', 'm_queued']);
    });

    it('usage aggregates: days before the last USAGE_RETENTION_DAYS (400) go from all four tables', async () => {
      const db = t.database.db;
      const oldest = dayAgo(399);
      const gone = dayAgo(400);
      for (const [day, key] of [[gone, 'k1'], [gone, 'k2'], [dayAgo(700), 'k1'], [oldest, 'k1'], [dayAgo(0), 'k1']] as const) {
        await db.insertInto('usage_daily').values({ key_id: key, day, requests: 1, errors: 0, rate_limited: 0, server_errors: 0 }).execute();
        await db.insertInto('usage_daily_errors').values({ key_id: key, day, code: 'not_found', count: 1 }).execute();
        await db.insertInto('usage_daily_routes').values({ key_id: key, day, method: 'GET', route: '/api/v1/lawyers', requests: 1, errors: 0 }).execute();
        await db.insertInto('usage_daily_latency').values({ key_id: key, day, bucket: 3, count: 1 }).execute();
      }
      const r = await runOne('usage_daily');
      assert.equal(r.cutoff, oldest);
      assert.equal(r.deleted, 12, 'three old rows in each of four tables');
      assert.equal(r.batches, 5, '12 rows, 3 per batch, and the short batch that finds none');
      for (const table of ['usage_daily', 'usage_daily_errors', 'usage_daily_routes', 'usage_daily_latency'] as const) {
        const days = (await db.selectFrom(table).select('day').execute()).map((x) => x.day).sort();
        assert.deepEqual(days, [oldest, dayAgo(0)], table);
      }
    });

    it('sessions and sign-in challenges: a day after they ended; passkey challenges an hour after; OAuth records at expiry', async () => {
      const db = t.database.db;
      const session = (id: string, over: { expires_at?: string; revoked_at?: string | null; last_seen_at?: string }) => ({ id, token_hash: `h_${id}`, user_id: userId, created_at: ago(20 * DAY), last_seen_at: over.last_seen_at ?? NOW, expires_at: over.expires_at ?? ago(-10 * DAY), revoked_at: over.revoked_at ?? null, client_ip: null, user_agent: null, step_up_at: null });
      await db
        .insertInto('sessions')
        .values([
          session('s_expired', { expires_at: ago(2 * DAY) }),
          session('s_revoked', { revoked_at: ago(2 * DAY) }),
          session('s_idle', { last_seen_at: ago((config.sessionIdleDays + 2) * DAY) }),
          session('s_revoked_today', { revoked_at: ago(HOUR) }),
          session('s_live', {}),
        ])
        .execute();
      const challenge = (id: string, expiresAt: string) => ({ id, email: 'a@example.com', code_hash: 'c', link_hash: `l_${id}`, browser_hash: 'b', return_to: null, locale: 'en', attempts: 0, client_ip: '127.0.0.1', created_at: ago(3 * DAY), expires_at: expiresAt, consumed_at: null });
      await db.insertInto('sign_in_challenges').values([challenge('c_old', ago(2 * DAY)), challenge('c_recent', ago(HOUR))]).execute();
      const pk = (id: string, expiresAt: string) => ({ id, challenge: `ch_${id}`, purpose: 'sign_in', session_id: null, user_id: null, created_at: ago(3 * HOUR), expires_at: expiresAt });
      await db.insertInto('passkey_challenges').values([pk('p_old', ago(2 * HOUR)), pk('p_recent', ago(30 * 60_000))]).execute();
      const oauth = (model: string, id: string, expiresAt: string | null) => ({ model, id, payload: '{}', grant_id: null, account_id: null, client_id: null, uid: null, expires_at: expiresAt, consumed_at: null, last_used_at: null, created_at: ago(DAY) });
      await db.insertInto('oauth_records').values([oauth('AccessToken', 'o_old', ago(1000)), oauth('AuthorizationCode', 'o_old2', ago(DAY)), oauth('AccessToken', 'o_live', ago(-1000)), oauth('Client', 'o_forever', null)]).execute();

      const { results, failed } = await retention().run({ only: ['sessions', 'passkey_challenges', 'oauth_records'], batchSize: 3 });
      assert.deepEqual(failed, []);
      assert.deepEqual(
        results.map((r) => [r.name, r.deleted]),
        [
          ['sessions', 4],
          ['passkey_challenges', 1],
          ['oauth_records', 2],
        ],
      );
      assert.deepEqual(await ids('sessions'), ['s_live', 's_revoked_today']);
      assert.deepEqual(await ids('sign_in_challenges'), ['c_recent']);
      assert.deepEqual(await ids('passkey_challenges'), ['p_recent']);
      const left = (await db.selectFrom('oauth_records').select('id').execute()).map((r) => r.id).sort();
      assert.deepEqual(left, ['o_forever', 'o_live']);
    });

    it('firm invitations: 30 days after the link expired, whatever became of it; lawyer changes after an hour', async () => {
      const db = t.database.db;
      const inv = (id: string, expiresAt: string, extra: { accepted_at?: string; revoked_at?: string } = {}) => ({ id, firm_id: firmId, email: `${id}@example.com`, role: 'member', permissions: '[]', token_hash: `t_${id}`, invited_by_user_id: null, locale: 'en', created_at: ago(40 * DAY), expires_at: expiresAt, accepted_at: extra.accepted_at ?? null, accepted_by_user_id: null, revoked_at: extra.revoked_at ?? null });
      await db
        .insertInto('firm_invitations')
        .values([
          inv('i_unused', ago(31 * DAY)),
          inv('i_accepted', ago(31 * DAY), { accepted_at: ago(35 * DAY) }),
          inv('i_revoked', ago(31 * DAY), { revoked_at: ago(36 * DAY) }),
          inv('i_closed_recently', ago(29 * DAY)),
          inv('i_pending', ago(-5 * DAY)),
        ])
        .execute();
      await db
        .insertInto('lawyer_changes')
        .values([
          { lawyer_id: 'l1', changed_at: ago(2 * HOUR) },
          { lawyer_id: 'l2', changed_at: ago(HOUR + 1) },
          { lawyer_id: 'l3', changed_at: ago(HOUR - 1000) },
        ])
        .execute();
      const { results } = await retention().run({ only: ['firm_invitations', 'lawyer_changes'], batchSize: 3 });
      assert.deepEqual(
        results.map((r) => [r.name, r.deleted]),
        [
          ['lawyer_changes', 2],
          ['firm_invitations', 3],
        ],
      );
      assert.deepEqual(await ids('firm_invitations'), ['i_closed_recently', 'i_pending']);
      assert.deepEqual((await db.selectFrom('lawyer_changes').select('lawyer_id').execute()).map((r) => r.lawyer_id), ['l3']);
    });

    it('runs every purge, in order, on an empty database without failing', async () => {
      const { results, failed } = await retention().run();
      assert.deepEqual(failed, []);
      assert.deepEqual(
        results.map((r) => r.name),
        [...PURGES],
      );
      assert.ok(results.every((r) => r.deleted === 0 && r.batches === 1));
    });

    it('a batch never deletes more than its limit', async () => {
      const sizes: number[] = [];
      let left = 10;
      const run = await drainInBatches(async (limit) => {
        const n = Math.min(limit, left);
        left -= n;
        sizes.push(n);
        return n;
      }, 4);
      assert.deepEqual(sizes, [4, 4, 2]);
      assert.deepEqual([run.deleted, run.batches], [10, 3]);
      await assert.rejects(drainInBatches(async () => 0, 0), RangeError);
    });
  });
}

for (const target of databaseTargets()) {
  describe(`retention in a serving process's jobs (${target.name})`, () => {
    it('runs the purges when the jobs start', async () => {
      const ctx = await createTestContext(target, { now: NOW });
      const db = ctx.database.db;
      try {
        const owner = randomUUID();
        await db
          .insertInto('webhook_endpoints')
          // Disabled: the dispatcher started with the jobs leaves its pending message alone.
          .values({ id: 'ep_jobs', owner_type: 'user', owner_id: owner, url: 'https://hooks.example.com/x', event_types: null, secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, disabled_at: ago(DAY), disabled_cause: 'manual', disabled_reason: 'test', consecutive_failures: 0, created_by_user_id: null, created_at: ago(90 * DAY), updated_at: NOW })
          .execute();
        const msg = (id: string, status: string) => ({ id, endpoint_id: 'ep_jobs', event_id: `evt_${id}`, event_type: 'booking_intent.expired', payload: '{}', status, attempts: 1, next_attempt_at: null, locked_until: null, claim_token: null, created_at: ago(60 * DAY), last_attempt_at: ago(60 * DAY), delivered_at: null });
        await db.insertInto('webhook_messages').values([msg('msg_jobs_dead', 'dead'), msg('msg_jobs_pending', 'pending')]).execute();
        await db
          .insertInto('request_log')
          .values({ request_id: 'req_jobs_old', at: ago(31 * DAY), key_id: null, owner_type: null, owner_id: null, test: 0, method: 'GET', route: '/x', path: '/x', status: 200, duration_ms: 1, client_ip: '127.0.0.1', error_code: null })
          .execute();
        const jobs = startJobs({ app: ctx.app, database: ctx.database, clock: ctx.clock, config: ctx.config });
        try {
          await waitFor(
            'the purges at start',
            async () => (await db.selectFrom('request_log').select('request_id').where('request_id', '=', 'req_jobs_old').executeTakeFirst()) === undefined && (await db.selectFrom('webhook_messages').select('id').where('id', '=', 'msg_jobs_dead').executeTakeFirst()) === undefined,
            30_000,
          );
        } finally {
          jobs.stop();
        }
        assert.deepEqual((await db.selectFrom('webhook_messages').select('id').execute()).map((r) => r.id), ['msg_jobs_pending']);
      } finally {
        await ctx.close();
      }
    });
  });
}
