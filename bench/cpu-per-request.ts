/**
 * In-process CPU per request of the warm (cached) search and availability answers, and of cold
 * availability answers, for one source tree and one seeded database — to compare two trees on a
 * machine too busy for the throughput benchmark (docs/performance.md, "Free times from the offer").
 *
 *   npx tsx bench/cpu-per-request.ts <tree root> <copy of a .bench/db/lawyers-20000-seed-7.db>
 */
const root = process.argv[2]!;
const dbFile = process.argv[3]!;
const { buildApp } = await import(`${root}/src/app.ts`);
const { loadConfig } = await import(`${root}/src/config.ts`);
const { openDatabase } = await import(`${root}/src/db/database.ts`);
const { systemClock } = await import(`${root}/src/clock.ts`);
const config = loadConfig({ SITE_URL: 'http://consulta.test', LOG_LEVEL: 'silent', FENCE_SECRET: 'test-fence-secret-0123456789', DATABASE_URL: `sqlite:${dbFile}` }, { rateLimitMultiplier: 1_000_000 });
const database = openDatabase(`sqlite:${dbFile}`);
const app = await buildApp({ config, database, clock: systemClock });
await app.fastify.ready();
const ids = (await database.db.selectFrom('lawyers').select('id').where('verified', '=', 1).where('listed', '=', 1).orderBy('id').limit(50).execute()).map((r: { id: string }) => r.id);
const scenarios: Record<string, string[]> = {
  'search: no filter': ['/api/v1/lawyers/search'],
  'search: city=madrid': ['/api/v1/lawyers/search?city=madrid'],
  'search: bcn ≤100€ price↑': ['/api/v1/lawyers/search?city=barcelona&max_fee_eur=100&sort=price_asc'],
  availability: ids.map((id: string) => `/api/v1/lawyers/${id}/availability`),
  'site: search results': ['/?city=madrid', '/?practice_area=residence', '/?city=barcelona&sort=price_asc', '/?language=ar'],
};
for (const [name, paths] of Object.entries(scenarios)) {
  for (let i = 0; i < 300; i++) await app.fastify.inject({ url: paths[i % paths.length]! });
  const best: number[] = [];
  for (let round = 0; round < 5; round++) {
    const t0 = process.cpuUsage();
    const n = 600;
    for (let i = 0; i < n; i++) {
      const res = await app.fastify.inject({ url: paths[i % paths.length]! });
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode}`);
    }
    const d = process.cpuUsage(t0);
    best.push((d.user + d.system) / 1000 / n);
  }
  best.sort((a, b) => a - b);
  console.log(`${name}\tmin ${best[0]!.toFixed(3)} ms\tmedian ${best[2]!.toFixed(3)} ms CPU/request`);
}
{
  // Cold: every availability answer computed (a new lawyer and date range each request).
  const today = new Date().toISOString().slice(0, 10);
  const all = (await database.db.selectFrom('lawyers').select('id').where('verified', '=', 1).where('listed', '=', 1).orderBy('id').offset(100).limit(1200).execute()).map((r: { id: string }) => r.id);
  const t0 = process.cpuUsage();
  for (const id of all) {
    const res = await app.fastify.inject({ url: `/api/v1/lawyers/${id}/availability?start_date=${today}` });
    if (res.statusCode !== 200) throw new Error(`cold: ${res.statusCode} ${res.body}`);
  }
  const d = process.cpuUsage(t0);
  console.log(`availability, cold\t${((d.user + d.system) / 1000 / all.length).toFixed(3)} ms CPU/request (${all.length} lawyers)`);
}
await app.fastify.close();
process.exit(0);
