/**
 * Benchmark databases, seeded through the service's own CLI and cached under .bench/db keyed by
 * size and seed, so reruns skip seeding. A cached file is reseeded when the demo generator or
 * the migrations changed (the data would no longer be what the code produces), when it is older
 * than MAX_AGE_DAYS (generated dates are relative to the reference date), or on --reseed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { ROOT, runToCompletion } from './children.ts';

const MAX_AGE_DAYS = 30;
/** Bumped when addCalendarExtras changes, so cached databases are reseeded. */
const CALENDAR_EXTRAS_VERSION = 1;

/**
 * What the demo seed does not write and the calendar reads on every availability answer: busy
 * times from her own calendar feed (two or three a week for every other lawyer, over the 90-day
 * horizon, some of them whole days) and, for a third of the lawyers, a buffer between
 * consultations and a longer minimum notice. Deterministic (from each lawyer's id), written
 * straight into the seeded file: only tables and columns that exist on main since 0024/0027.
 */
function addCalendarExtras(file: string, referenceDate: string): number {
  const db = new Sqlite(file);
  try {
    const ids = db.prepare('select id from lawyers order by id').pluck().all() as string[];
    const insert = db.prepare("insert into lawyer_busy_intervals (lawyer_id, source, starts_at, ends_at) values (?, 'ical', ?, ?)");
    const offer = db.prepare('update lawyers set buffer_minutes = ?, min_notice_minutes = ? where id = ?');
    const start = Date.parse(`${referenceDate}T00:00:00Z`);
    let count = 0;
    db.transaction(() => {
      ids.forEach((id, n) => {
        const h = createHash('sha256').update(id).digest();
        if (h[0]! % 3 === 0) offer.run([0, 15, 30][h[1]! % 3], [null, 240, 1440][h[2]! % 3], id);
        if (n % 2 === 1) return;
        for (let week = 0; week < 13; week++) {
          for (let k = 0; k < 2 + (h[(week + 3) % 32]! % 2); k++) {
            const b = h[(week * 3 + k + 5) % 32]!;
            const day = start + (week * 7 + (b % 7)) * 86_400_000;
            // 07:00–15:45 UTC start, 30 min to 3 h long; one in sixteen is a whole day.
            const from = day + (7 * 60 + (b % 36) * 15) * 60_000;
            const to = b % 16 === 0 ? day + 86_400_000 : from + (30 + (b % 6) * 30) * 60_000;
            insert.run(id, new Date(b % 16 === 0 ? day : from).toISOString(), new Date(to).toISOString());
            count++;
          }
        }
      });
    })();
    return count;
  } finally {
    db.close();
  }
}

interface SeedMeta {
  lawyers: number;
  seed: number;
  reference_date: string;
  fingerprint: string;
  seconds: number;
  seeded_at: string;
}

export interface BenchDatabase {
  file: string;
  lawyers: number;
  seed: number;
  referenceDate: string;
  /** Seconds the seed took, or null when the cached file was reused. */
  seededSeconds: number | null;
}

function sourceFingerprint(): string {
  const hash = createHash('sha256');
  hash.update(`calendar-extras-${CALENDAR_EXTRAS_VERSION}`);
  for (const dir of ['src/domain/demo', 'src/db/migrations']) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const name of fs.readdirSync(abs).sort()) {
      hash.update(name).update(fs.readFileSync(path.join(abs, name)));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function todayInMadrid(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/**
 * The bench's publishable key (the widget's frame scenarios), created once per cached database
 * through the CLI, as an integrator's would be: live, tier internal, listing WIDGET_HOST. A
 * publishable key is shown in the dashboard again, so keeping its token beside the file is what
 * the product does too; reseeding removes it. Returns the token (pk_live_…).
 */
export async function widgetKey(db: Pick<BenchDatabase, 'file'>, origin: string): Promise<string> {
  const file = `${db.file}.widget-key.json`;
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { token: string; origin: string; seeded_at: string };
    const meta = JSON.parse(fs.readFileSync(`${db.file}.json`, 'utf8')) as SeedMeta;
    if (saved.origin === origin && saved.seeded_at === meta.seeded_at) return saved.token;
  }
  const args = ['bin/consulta.js', 'keys', 'create', '--publishable', '--origin', origin, '--tier', 'internal', '--owner', 'bench-widget@example.com', '--name', 'bench widget', '--json'];
  const stdout = await runToCompletion(args, { DATABASE_URL: `sqlite:${db.file}`, LOG_LEVEL: 'warn' }, 120_000);
  const token = (JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { token?: string }).token;
  if (!token?.startsWith('pk_live_')) throw new Error(`keys create --publishable printed no pk_live_ token: ${stdout.slice(0, 300)}`);
  const meta = JSON.parse(fs.readFileSync(`${db.file}.json`, 'utf8')) as SeedMeta;
  fs.writeFileSync(file, `${JSON.stringify({ token, origin, seeded_at: meta.seeded_at }, null, 2)}\n`);
  return token;
}

export async function benchDatabase(dir: string, lawyers: number, seed: number, reseed: boolean): Promise<BenchDatabase> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `lawyers-${lawyers}-seed-${seed}.db`);
  const metaFile = `${file}.json`;
  const fingerprint = sourceFingerprint();
  if (!reseed && fs.existsSync(file) && fs.existsSync(metaFile)) {
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as SeedMeta;
    const ageDays = (Date.now() - Date.parse(meta.seeded_at)) / 86_400_000;
    if (meta.fingerprint === fingerprint && ageDays < MAX_AGE_DAYS && meta.lawyers === lawyers) {
      return { file, lawyers, seed, referenceDate: meta.reference_date, seededSeconds: null };
    }
  }

  // Seed into a scratch file and rename only on success, so an interrupted seed is never reused.
  const partial = path.join(dir, `lawyers-${lawyers}-seed-${seed}.partial.db`);
  removeDb(partial);
  removeDb(file);
  fs.rmSync(metaFile, { force: true });
  fs.rmSync(`${file}.widget-key.json`, { force: true });
  const referenceDate = todayInMadrid();
  process.stdout.write(`seeding ${lawyers.toLocaleString('en')} lawyers (seed ${seed}, reference date ${referenceDate}) … `);
  const args = ['bin/consulta.js', 'seed', '--lawyers', String(lawyers), '--seed', String(seed), '--reference-date', referenceDate, '--json'];
  // Generous bound: 100,000 lawyers take a few minutes on a 2-core machine.
  const stdout = await runToCompletion(args, { DATABASE_URL: `sqlite:${partial}`, LOG_LEVEL: 'warn' }, 30 * 60_000);
  const line = stdout.trim().split('\n').pop() ?? '';
  const result = JSON.parse(line) as { lawyers: number; seconds: number };
  if (result.lawyers !== lawyers) throw new Error(`seed reported ${result.lawyers} lawyers, expected ${lawyers}`);
  addCalendarExtras(partial, referenceDate);
  for (const suffix of ['-wal', '-shm']) {
    if (fs.existsSync(`${partial}${suffix}`)) fs.renameSync(`${partial}${suffix}`, `${file}${suffix}`);
  }
  fs.renameSync(partial, file);
  const meta: SeedMeta = { lawyers, seed, reference_date: referenceDate, fingerprint, seconds: result.seconds, seeded_at: new Date().toISOString() };
  fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  process.stdout.write(`${result.seconds.toFixed(1)} s\n`);
  return { file, lawyers, seed, referenceDate, seededSeconds: result.seconds };
}
