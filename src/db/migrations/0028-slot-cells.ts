// Frozen migration: never import application code here.
// Free times from the lawyer's offer (issue 18, plan step E; docs/lawyers.md "The consultation and
// the calendar"). Consultations now have her length (30/45/60/90) and a buffer, and ranges may be
// cut on different grids, so the slot_holds primary key (lawyer, date, start) no longer stops two
// overlapping holds on its own. `slot_cells` does: one row per 15-minute cell of [start, end +
// buffer) of every hold and booking, keyed (lawyer_id, cell_start) — of two overlapping holds,
// whatever their lengths, only one can commit its cells, on SQLite and PostgreSQL alike.
// - Each cell belongs to its slot_holds row (foreign key on the hold's key, ON DELETE CASCADE):
//   releasing, expiring or reclaiming a hold frees its cells in the same statement.
// - slot_holds.occupied_until: where the hold's cells end (its end plus the buffer she had when
//   it was made), as UTC ISO text, so availability shows exactly what the cells let a booking take.
// - Backfill: the cells and occupied_until of every hold still live and every booking from
//   yesterday on, computed here with Intl in the lawyer's zone (overlapping old holds keep the
//   first's cells; the rest of the other's are still recorded).
import { sql, type Kysely } from 'kysely';

const CELL_MS = 15 * 60_000;

function offsetMinutes(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(utcMs);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/** The instant of a wall-clock time in a zone (the first occurrence; a skipped time moves on by the jump). */
function zoned(date: string, time: string, timeZone: string): number {
  const wall = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}Z`);
  let guess = wall - offsetMinutes(wall, timeZone) * 60_000;
  guess = wall - offsetMinutes(guess, timeZone) * 60_000;
  const earlier = guess - 3_600_000;
  return earlier + offsetMinutes(earlier, timeZone) * 60_000 === wall ? earlier : guess;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('slot_holds').addColumn('occupied_until', 'text').execute();
  await db.schema
    .createTable('slot_cells')
    .addColumn('lawyer_id', 'text', (c) => c.notNull())
    // The cell's first instant, ISO 8601 UTC text (`2026-11-27T09:15:00.000Z`).
    .addColumn('cell_start', 'text', (c) => c.notNull())
    // The hold this cell belongs to: slot_holds' key.
    .addColumn('slot_date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('slot_cells_pk', ['lawyer_id', 'cell_start'])
    .addForeignKeyConstraint('slot_cells_hold', ['lawyer_id', 'slot_date', 'start_time'], 'slot_holds', ['lawyer_id', 'slot_date', 'start_time'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  // The cascade's look-up, and "which holds own these cells" when reclaiming lapsed ones.
  await db.schema.createIndex('slot_cells_hold').on('slot_cells').columns(['lawyer_id', 'slot_date', 'start_time']).execute();

  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const since = new Date(now - 2 * 86_400_000).toISOString().slice(0, 10);
  const holds = (await sql<{ lawyer_id: string; slot_date: string; start_time: string; end_time: string; timezone: string; buffer_minutes: number }>`
    select h.lawyer_id, h.slot_date, h.start_time, h.end_time, l.timezone, l.buffer_minutes
    from slot_holds h join lawyers l on l.id = h.lawyer_id
    where h.slot_date >= ${since} and (h.status = 'booked' or h.expires_at > ${nowIso})
    order by h.lawyer_id, h.slot_date, h.start_time`.execute(db)).rows;
  for (const h of holds) {
    const startMs = zoned(h.slot_date, h.start_time, h.timezone);
    const untilMs = zoned(h.slot_date, h.end_time, h.timezone) + Number(h.buffer_minutes ?? 0) * 60_000;
    const cells: Array<Record<string, string>> = [];
    for (let t = Math.floor(startMs / CELL_MS) * CELL_MS; t < untilMs; t += CELL_MS) {
      cells.push({ lawyer_id: h.lawyer_id, cell_start: new Date(t).toISOString(), slot_date: h.slot_date, start_time: h.start_time });
    }
    if (cells.length > 0) await db.insertInto('slot_cells').values(cells).onConflict((oc) => oc.columns(['lawyer_id', 'cell_start']).doNothing()).execute();
    await db
      .updateTable('slot_holds')
      .set({ occupied_until: new Date(untilMs).toISOString() })
      .where('lawyer_id', '=', h.lawyer_id)
      .where('slot_date', '=', h.slot_date)
      .where('start_time', '=', h.start_time)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('slot_cells').ifExists().execute();
  await db.schema.alterTable('slot_holds').dropColumn('occupied_until').execute();
}
