/**
 * How many SQL statements, round trips, commits and fsyncs one hold costs (not a test, not a timing):
 * `npx tsx bench/hold-statements.ts [--db sqlite|postgres] [--holds N] [--sql]`.
 *
 * Builds the real app over a fresh database (test/support), makes `--holds` (20) keyed holds with an
 * Idempotency-Key on distinct free slots one after another through `inject`, then a replay of one,
 * keyed holds without a key, and confirmations of holds (`BookingService.confirm`, what the site runs
 * once a payment is authorised), and prints per operation: statements by kind, transactions that
 * committed a write (each costs a durable flush: an fsync on SQLite, a WAL flush on PostgreSQL) and,
 * on SQLite, the WAL fsyncs the process asked for (the group commit's counter, or one per commit
 * with synchronous=FULL). Every statement is one round trip on PostgreSQL.
 *
 * Counting: on SQLite every execution of a better-sqlite3 statement on the serving connection
 * (the request log writes on its own thread and connection and is not counted); on PostgreSQL every
 * `query` a pg client sends. `--sql` prints the statements of one hold of each kind.
 * PostgreSQL runs when TEST_DATABASE_URL is set (as in the tests).
 */
import pg from 'pg';
import type SQLite from 'better-sqlite3';
import { createTestContext, type TestContext } from '../test/support/app.ts';
import { createKey, createUser, initiate, slotBody, tokenOf } from '../test/support/booking.ts';
import { databaseTargets } from '../test/support/databases.ts';
import { insertLawyers, lawyerRecord } from '../test/support/factories.ts';
import * as databaseModule from '../src/db/database.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const HOLDS = Number(opt('holds') ?? 20);
const ONLY_DB = opt('db');
const SHOW_SQL = args.includes('--sql');

interface Tally {
  statements: number;
  byKind: Record<string, number>;
  /** Transactions (explicit, or a single autocommit statement) that wrote something and committed. */
  writingCommits: number;
  sql: string[];
}

const fresh = (): Tally => ({ statements: 0, byKind: {}, writingCommits: 0, sql: [] });
let current: Tally | null = null;

/** Per connection: inside an explicit transaction, and whether it wrote. */
const txState = new WeakMap<object, { open: boolean; wrote: boolean }>();

function record(conn: object, source: string, changed: boolean): void {
  if (!current) return;
  const text = source.trim();
  const kind = (/^\s*(\w+)/.exec(text)?.[1] ?? '?').toLowerCase();
  current.statements++;
  current.byKind[kind] = (current.byKind[kind] ?? 0) + 1;
  current.sql.push(text.replace(/\s+/g, ' ').slice(0, 200));
  const st = txState.get(conn) ?? { open: false, wrote: false };
  txState.set(conn, st);
  if (kind === 'begin' || kind === 'start') {
    st.open = true;
    st.wrote = false;
  } else if (kind === 'commit') {
    if (st.wrote) current.writingCommits++;
    st.open = false;
  } else if (kind === 'rollback') {
    st.open = false;
  } else if (changed) {
    if (st.open) st.wrote = true;
    else current.writingCommits++;
  }
}

const WRITES = /^\s*(with\b[\s\S]*?\)\s*)?(insert|update|delete)\b/i;

function instrumentSqlite(sqlite: SQLite.Database): void {
  const proto = Object.getPrototypeOf(sqlite.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  if ((proto as { __counted?: boolean }).__counted) return;
  (proto as { __counted?: boolean }).__counted = true;
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function (this: SQLite.Statement & { database: object }, ...a: unknown[]) {
      const out = original.apply(this, a);
      const changed = method === 'run' ? (out as { changes: number }).changes > 0 : !this.reader && WRITES.test(this.source);
      record(this.database, this.source, changed);
      return out;
    };
  }
}

function instrumentPostgres(): void {
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown; __counted?: boolean };
  if (proto.__counted) return;
  proto.__counted = true;
  const original = proto.query;
  proto.query = function (this: object, ...a: unknown[]) {
    const text = typeof a[0] === 'string' ? a[0] : ((a[0] as { text?: string } | undefined)?.text ?? '');
    const out = original.apply(this, a);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      return (out as Promise<{ rowCount: number | null; command?: string }>).then((r) => {
        record(this, text, (r?.rowCount ?? 0) > 0 && /^(INSERT|UPDATE|DELETE|MERGE)$/.test(r?.command ?? ''));
        return r;
      });
    }
    record(this, text, false);
    return out;
  };
}

/** The group commit's fsync counter where it exists (NaN before it: with synchronous=FULL each writing commit is one WAL fsync). */
const walSyncCount = (): number => (databaseModule as { walSyncCount?: () => number }).walSyncCount?.() ?? Number.NaN;

async function counted<T>(run: () => Promise<T>): Promise<{ value: T; tally: Tally; walSyncs: number; ms: number }> {
  const syncs0 = walSyncCount();
  current = fresh();
  try {
    const t0 = performance.now();
    const value = await run();
    const ms = performance.now() - t0;
    // Group-commit fsyncs may complete just after the answer's promise on other paths: let them land.
    await new Promise((r) => setTimeout(r, 5));
    return { value, tally: current, walSyncs: walSyncCount() - syncs0, ms };
  } finally {
    current = null;
  }
}

function summary(label: string, runs: Array<{ tally: Tally; walSyncs: number; ms: number }>, dialect: string): string {
  const n = runs.length;
  const sum = (f: (r: { tally: Tally; walSyncs: number; ms: number }) => number) => runs.reduce((a, r) => a + f(r), 0) / n;
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const kinds = new Map<string, number>();
  for (const r of runs) for (const [k, v] of Object.entries(r.tally.byKind)) kinds.set(k, (kinds.get(k) ?? 0) + v / n);
  const kindText = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${fmt(v)}`).join(', ');
  const syncs = dialect === 'sqlite' ? `, WAL fsyncs ${fmt(sum((r) => r.walSyncs))}` : '';
  return `${dialect.padEnd(8)} ${label.padEnd(44)} statements ${fmt(sum((r) => r.tally.statements)).padStart(5)} (${kindText}); writing commits ${fmt(sum((r) => r.tally.writingCommits))}${syncs}; median ${ms[Math.floor((n - 1) / 2)]!.toFixed(2)} ms each, one at a time   [n=${n}]`;
}
const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

async function measure(ctx: TestContext): Promise<string[]> {
  const dialect = ctx.database.dialect;
  if (dialect === 'sqlite') instrumentSqlite(ctx.database.sqlite!);
  else instrumentPostgres();
  const weekly = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 30 as const }));
  const lawyers = await insertLawyers(ctx.database, Array.from({ length: 8 }, () => lawyerRecord({ weekly_hours: weekly })));
  const key = await createKey(ctx, { tier: 'internal' });
  const user = await createUser(ctx, `hold-statements-${process.pid}@example.com`);
  // Distinct free slots: every half hour from 10:00 to 19:30 on the next days, over the lawyers.
  const slots: ReturnType<typeof slotBody>[] = [];
  for (let day = 24; day <= 30; day++) {
    for (const lawyer of lawyers) {
      for (let h = 10; h < 20; h++) for (const m of ['00', '30']) slots.push(slotBody(lawyer, `2026-11-${day}`, `${h}:${m}`, 30));
    }
  }
  let next = 0;
  const hold = async (idempotencyKey?: string) => {
    const res = await initiate(ctx, slots[next++]!, { token: key.token, ...(idempotencyKey ? { idempotencyKey } : {}) });
    if (res.statusCode !== 201) throw new Error(`hold: ${res.statusCode} ${res.body}`);
    return res;
  };
  // Warm-up: caches, prepared statements, the pool's connections.
  for (let i = 0; i < 5; i++) await hold(`warm-${i}`);

  const out: string[] = [];
  const show = (label: string, t: Tally) => {
    if (SHOW_SQL) out.push(`  -- ${dialect}, ${label}:\n${t.sql.map((s) => `     ${s}`).join('\n')}`);
  };
  const keyed = [];
  for (let i = 0; i < HOLDS; i++) keyed.push(await counted(() => hold(`count-${i}`)));
  out.push(summary('hold, key + Idempotency-Key (201)', keyed, dialect));
  show('hold with Idempotency-Key', keyed[0]!.tally);

  const replayBody = slots[next - 1]!;
  const replays = [];
  for (let i = 0; i < 5; i++) {
    replays.push(
      await counted(async () => {
        const r = await initiate(ctx, replayBody, { token: key.token, idempotencyKey: `count-${HOLDS - 1}` });
        if (r.headers['idempotent-replayed'] !== 'true') throw new Error(`not a replay: ${r.statusCode}`);
      }),
    );
  }
  out.push(summary('replay of a stored 201', replays, dialect));
  show('replay', replays[0]!.tally);

  const plain = [];
  const tokens: string[] = [];
  for (let i = 0; i < HOLDS; i++) {
    const r = await counted(() => hold());
    tokens.push(tokenOf((r.value.json() as { confirmation_url: string }).confirmation_url));
    plain.push(r);
  }
  out.push(summary('hold, key, no Idempotency-Key (201)', plain, dialect));

  const taken = [];
  for (let i = 0; i < 5; i++) {
    taken.push(
      await counted(async () => {
        const r = await initiate(ctx, slots[next - 1 - i]!, { token: key.token, idempotencyKey: `taken-${i}` });
        if (r.statusCode !== 404) throw new Error(`expected the slot 404: ${r.statusCode}`);
      }),
    );
  }
  out.push(summary('hold of a taken slot (404, stored)', taken, dialect));
  show('taken slot', taken[0]!.tally);

  const confirms = [];
  for (const token of tokens) {
    confirms.push(
      await counted(async () => {
        const r = await ctx.app.services.booking.confirm(token, user);
        if (r.outcome !== 'confirmed') throw new Error(`confirm: ${r.outcome}`);
      }),
    );
  }
  out.push(summary('confirm after payment (BookingService.confirm)', confirms, dialect));
  show('confirm', confirms[0]!.tally);
  return out;
}

const lines: string[] = [];
for (const target of databaseTargets()) {
  if (ONLY_DB && target.name !== ONLY_DB) continue;
  // The per-key cap and rate limits must not refuse the counted holds.
  const ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1_000_000, maxPendingIntentsPerKey: 100_000, directoryRefreshMs: 1000 } });
  try {
    lines.push(...(await measure(ctx)));
  } finally {
    await ctx.close();
  }
}
console.log(lines.join('\n'));
