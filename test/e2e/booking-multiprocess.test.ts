/**
 * Two real `consulta serve` processes on one PostgreSQL database: the slot_holds constraint, not
 * process memory, decides who gets a slot, and an Idempotency-Key binds across processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import { SLOT_UNAVAILABLE_BODY } from '../../src/domain/booking/booking.service.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody, type InitiateBodyInput } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

const postgres = databaseTargets().find((t) => t.name === 'postgres');
const skip = postgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): several processes cannot share one SQLite file for this';

interface Answer {
  server: number;
  status: number;
  body: string;
  replayed: string | null;
}

async function post(server: ServerProcess, index: number, body: InitiateBodyInput, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${server.url}/api/v1/bookings/initiate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { server: index, status: res.status, body: await res.text(), replayed: res.headers.get('idempotent-replayed') };
}

describe('two server processes on one PostgreSQL race for one slot', { skip }, () => {
  let db: TestDatabase;
  let servers: ServerProcess[] = [];
  let lawyer: string;
  let token: string;
  let keyId: string;
  // Real processes keep real time: a date three days ahead, every weekday open.
  const date = madridDate(Date.now(), 3);

  before(async () => {
    db = await postgres!.create();
    [lawyer] = (await insertLawyers(db.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })], new Date())) as [string];
    const created = await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'multi@example.com' }, { mode: 'live' });
    token = created.token;
    keyId = created.key.id;
    const env = { DATABASE_URL: db.url, RATE_LIMIT_MULTIPLIER: '1000', SWEEP_INTERVAL_MS: '200' };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await db?.drop();
  });

  it('200 concurrent initiates over HTTP, split across both processes: exactly one 201', async () => {
    const body = slotBody(lawyer, date, '10');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => post(servers[i % 2]!, i % 2, body)));
    const created = answers.filter((a) => a.status === 201);
    assert.equal(created.length, 1, JSON.stringify(answers.map((a) => a.status)));
    const refused = answers.filter((a) => a.status === 404);
    assert.equal(refused.length, 199);
    for (const a of refused) assert.equal(a.body, SLOT_UNAVAILABLE_BODY);
    // Both processes really served the race.
    assert.equal(answers.filter((a) => a.server === 0).length, 100);
    assert.ok(refused.some((a) => a.server === 0) && refused.some((a) => a.server === 1));

    const id = (JSON.parse(created[0]!.body) as { booking_intent_id: string }).booking_intent_id;
    const holds = await db.database.db.selectFrom('slot_holds').selectAll().where('lawyer_id', '=', lawyer).execute();
    assert.equal(holds.length, 1);
    assert.equal(holds[0]!.booking_intent_id, id);
    const intents = await db.database.db.selectFrom('booking_intents').select(['id', 'status']).where('lawyer_id', '=', lawyer).execute();
    assert.deepEqual(intents, [{ id, status: 'pending' }]);
  });

  it('one Idempotency-Key sent to both processes at once creates one intent', async () => {
    const body = slotBody(lawyer, date, '11');
    const headers = { authorization: `Bearer ${token}`, 'idempotency-key': 'across-processes' };
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(servers[i % 2]!, i % 2, body, headers)));
    const statuses = new Set(answers.map((a) => a.status));
    assert.ok([...statuses].every((s) => s === 201 || s === 409), JSON.stringify([...statuses]));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1);
    assert.equal(created.filter((a) => a.replayed === null).length, 1, 'exactly one original');
    assert.equal(new Set(created.map((a) => a.body)).size, 1);
    const intents = await db.database.db.selectFrom('booking_intents').select('id').where('key_id', '=', keyId).execute();
    assert.deepEqual(intents.map((r) => r.id), [(JSON.parse(created[0]!.body) as { booking_intent_id: string }).booking_intent_id]);
  });
});
