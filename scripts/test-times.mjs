// A node:test reporter that times each test file: scripts/test.mjs runs it beside the spec
// reporter. At the end it prints the slowest 20 files and merges every file's time into
// .test-times.json (gitignored), so files measured in separate runs sit side by side.
//
// A file's time is its wall time as the runner saw it, process start to exit (Node 20 reports
// the file itself as a test at nesting 0 named by its path); where a runtime does not, the sum
// of the file's top-level tests. The load average at start and end is recorded with each run:
// on a shared 2-core machine a file's seconds mean little without it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const OUT = process.env.TEST_TIMES_FILE ?? '.test-times.json';
const SHOWN = 20;

/** The test file's path in the repository: a bundle (scripts/test-build.mjs) is named by its source. */
function relative(file) {
  if (!file) return '(no file)';
  const rel = path.relative(process.cwd(), file);
  const bundled = rel.match(/^node_modules\/\.cache\/consulta-tests\/run-\d+\/(.*)\.mjs$/);
  return bundled ? `${bundled[1]}.ts` : rel;
}

export default async function* testTimes(source) {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const whole = new Map(); // file -> ms, from the file's own event
  const topLevel = new Map(); // file -> { ms, tests, failed }
  for await (const event of source) {
    if (event.type !== 'test:complete' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, name, file, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const ms = details?.duration_ms ?? 0;
    const key = relative(file);
    if (path.resolve(name) === path.resolve(file)) {
      if (event.type === 'test:complete') whole.set(key, { ms, failed: details?.passed === false || Boolean(details?.error) });
      continue;
    }
    if (event.type === 'test:complete') continue; // counted once, by its pass or fail
    const entry = topLevel.get(key) ?? { ms: 0, tests: 0, failed: false };
    entry.ms += ms;
    entry.tests += 1;
    if (event.type === 'test:fail') entry.failed = true;
    topLevel.set(key, entry);
  }

  const files = new Set([...whole.keys(), ...topLevel.keys()]);
  const rows = [...files].map((file) => {
    const w = whole.get(file);
    const t = topLevel.get(file);
    return {
      file,
      seconds: Math.round((w?.ms ?? t?.ms ?? 0) / 100) / 10,
      testsSeconds: Math.round((t?.ms ?? 0) / 100) / 10,
      topLevelTests: t?.tests ?? 0,
      failed: Boolean(w?.failed || t?.failed),
    };
  });
  if (rows.length === 0) return;
  rows.sort((a, b) => b.seconds - a.seconds);

  const run = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    wallSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
    files: rows.length,
    node: process.version,
    cores: os.cpus().length,
    loadAverageAtStart: loadStart.map((x) => Math.round(x * 100) / 100),
    loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100),
    concurrency: process.env.TEST_CONCURRENCY ?? null,
  };
  let saved = { files: {} };
  try {
    saved = JSON.parse(fs.readFileSync(OUT, 'utf8'));
    if (typeof saved.files !== 'object' || saved.files === null) saved = { files: {} };
  } catch {
    // none yet, or unreadable: start afresh
  }
  for (const r of rows) saved.files[r.file] = { seconds: r.seconds, testsSeconds: r.testsSeconds, topLevelTests: r.topLevelTests, failed: r.failed, at: run.startedAt, loadAverageAtStart: run.loadAverageAtStart[0] };
  saved.lastRun = run;
  try {
    fs.writeFileSync(OUT, `${JSON.stringify(saved, null, 2)}\n`);
  } catch (error) {
    yield `test-times: could not write ${OUT}: ${error.message}\n`;
  }

  const sum = rows.reduce((s, r) => s + r.seconds, 0);
  let text = `\nSlowest test files (wall time per file, ${rows.length} files, ${Math.round(sum)} s summed over ${run.wallSeconds} s; load average ${run.loadAverageAtStart[0]} → ${run.loadAverageAtEnd[0]} on ${run.cores} cores):\n`;
  for (const r of rows.slice(0, SHOWN)) text += `${r.seconds.toFixed(1).padStart(8)} s  ${r.file}${r.failed ? '  (failed)' : ''}\n`;
  text += `All times: ${OUT}\n`;
  yield text;
}
