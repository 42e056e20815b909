import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import { systemClock } from '../../src/clock.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { OPERATOR } from '../support/keys.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';
import { deleteKeys, testRedis } from '../support/redis.ts';

const postgres = databaseTargets().find((t) => t.name === 'postgres');
const redis = await testRedis();
const skip = !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL)' : redis.url === null ? redis.skip : false;

describe('two server processes on one PostgreSQL share rate limits through Redis', { skip }, () => {
  let db: TestDatabase;
  let servers: ServerProcess[] = [];
  let token: string;
  let keyId: string;

  before(async () => {
    db = await postgres!.create();
    const created = await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'e2e@example.com' }, { mode: 'live' });
    token = created.token;
    keyId = created.key.id;
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url! };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    // Only this key's counters: a shared Redis may hold a developer's live ones.
    if (redis.url && keyId) await deleteKeys(redis.url, `consulta:rl:key:${keyId}`);
  });

  it('admits exactly the key\'s 60 a minute across both processes', async () => {
    // Real processes keep real time: stay clear of a minute boundary (the burst takes well under 2 s).
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 58_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const requests = Array.from({ length: 100 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/api/v1/cities`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status),
    );
    const statuses = await Promise.all(requests);
    assert.equal(statuses.filter((s) => s === 200).length, 60, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 40);
  });
});
