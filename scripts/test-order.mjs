// The order scripts/test.mjs hands test files to the runner: the longest first.
//
// Why: Node's runner starts files in the order it is given, two at a time, and a file started
// last runs alone at the end while the other core idles. Alphabetical order started the 120 s
// kill -9 suite after the browser walks, and any long file near the end of the alphabet made the
// run's tail. Longest-processing-time-first keeps both cores busy until the small files fill the
// last minute.
//
// Expected times come from scripts/test-durations.json (committed: a fresh CI clone has no
// .test-times.json), then from this checkout's own .test-times.json for a file the committed list
// does not know, then from the file's folder. Only the order depends on them; every file runs.
// After a quiet whole run, `node scripts/test-order.mjs --refresh` writes that run's times
// (.test-times.json) into scripts/test-durations.json.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATIONS = path.join(ROOT, 'scripts', 'test-durations.json');
/** This checkout's own times (scripts/test-times.mjs writes them; TEST_TIMES_FILE moves them, as there). */
const times = () => path.resolve(ROOT, process.env.TEST_TIMES_FILE ?? '.test-times.json');

/** A guess, in seconds, for a file no list has timed, by what it drives. */
function byFolder(file) {
  if (file.startsWith('test/browser/')) return 20;
  if (file.startsWith('test/chaos/')) return 20;
  if (file.startsWith('test/e2e/')) return 15;
  if (/cli\.test\.ts$/.test(file)) return 15;
  if (file.startsWith('test/unit/')) return 2;
  return 5;
}

function read(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Expected seconds of each file (repository-relative paths). */
export function expectedSeconds(files) {
  const committed = read(DURATIONS)?.files ?? {};
  const local = read(times())?.files ?? {};
  return new Map(
    files.map((f) => {
      const rel = path.relative(ROOT, path.resolve(f)).split(path.sep).join('/');
      const seconds = committed[rel] ?? local[rel]?.seconds ?? byFolder(rel);
      return [f, Number(seconds) || 0];
    }),
  );
}

/** `files`, longest expected first; ties in path order, so the order is the same on every run. */
export function longestFirst(files) {
  const expected = expectedSeconds(files);
  return [...files].sort((a, b) => expected.get(b) - expected.get(a) || (a < b ? -1 : a > b ? 1 : 0));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname) && process.argv.includes('--refresh')) {
  const run = read(times());
  if (!run?.files) {
    console.error(`no ${path.relative(ROOT, times())} to refresh from: run npm test first`);
    process.exit(1);
  }
  const previous = read(DURATIONS) ?? {};
  const files = { ...(previous.files ?? {}) };
  for (const [file, t] of Object.entries(run.files)) if (!t.failed) files[file] = t.seconds;
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  const note = `seconds per test file, from .test-times.json of the run started ${run.lastRun?.startedAt ?? '?'} (load ${run.lastRun?.loadAverageAtStart?.[0] ?? '?'}); only the order of the files depends on it (scripts/test-order.mjs)`;
  fs.writeFileSync(DURATIONS, `${JSON.stringify({ note, files: sorted }, null, 2)}\n`);
  console.log(`${Object.keys(sorted).length} files in ${path.relative(ROOT, DURATIONS)}`);
}
