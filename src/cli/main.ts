/**
 * The `consulta` command. Thin: it parses arguments, calls domain services and prints
 * (human text, or JSON with --json). Exit codes: 0 ok, 1 failure, 2 usage error.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, refusesPeoplePages, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { describeDatabaseUrl, missingDatabaseReason } from '../db/existing.ts';
import { countLawyers } from '../db/repositories/lawyer.repository.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { dateInZone } from '../zoned-time.ts';
import { progressReporter } from './progress.ts';

class UsageError extends Error {}

export const HELP = `consulta — find a verified immigration lawyer in Spain (API, MCP server, site)

Usage: consulta <command> [options]   (every command accepts --json)

  start                       migrate, seed demo lawyers if the database is empty, serve
  serve                       serve the API, site and docs on PORT
  migrate                     bring the database schema up to date
  seed [--lawyers N] [--seed S] [--reference-date YYYY-MM-DD]
                              add N generated demo lawyers (default 300, seed 1)
  requests show REQUEST_ID    one API request from the request log (support)
  import FILE                 import lawyers from JSON Lines (docs/import-format.md);
                              all or nothing
  backup FILE [--force]       copy the SQLite database to FILE while the server runs
                              (online backup, checked); --force replaces an existing
                              FILE. PostgreSQL: use pg_dump (docs/operations.md)

  keys create [--test] [--tier T] [--scopes a,b] [--owner EMAIL | --firm SLUG]
              [--name N] [--expires-at ISO] [--allow-ip CIDR,…]
                              create an API key; the key is printed ONCE
  keys create --publishable --origin https://a.example[,…] [--test] [--owner EMAIL | --firm SLUG]
                              a pk_live_/pk_test_ key for the booking widget,
                              working only from those web origins (docs/widget.md)
  keys list [--owner EMAIL | --firm SLUG]
  keys show|revoke|unsuspend KEY_ID
  keys suspend KEY_ID --reason R
  keys set-tier KEY_ID free|partner|internal
  keys set-allowlist KEY_ID CIDR,…|--clear
  firms create SLUG --name N --owner EMAIL
  firms members SLUG
  firms add-member SLUG EMAIL --role owner|admin|member [--permissions p,q]
  firms set-role SLUG EMAIL ROLE
  firms set-permissions SLUG EMAIL [p,q]
  firms remove-member SLUG EMAIL
                              keys and firms act as the operator, or as a user
                              with --as EMAIL (docs/keys-and-firms.md)
  webhooks add (--owner EMAIL | --firm SLUG) --url URL [--events a,b]
                              register an endpoint; its signing secret is printed ONCE
  webhooks list [--owner EMAIL | --firm SLUG]
  webhooks show|rotate-secret|enable|test ID
  webhooks disable ID --reason R
  webhooks deliveries ID [--limit N]
  webhooks retry ID MESSAGE_ID
                              manage webhook endpoints (docs/webhooks.md); retry sends
                              a dead message again; --as EMAIL acts as a user, like
                              keys and firms
  mail list [--to EMAIL] [--limit N]
  mail show ID | mail show --last [--to EMAIL]
                              read the mail outbox, newest first: where mail
                              stays when SMTP_URL is unset (docs/mail.md)
  operators add|remove EMAIL | operators list | operators audit [--limit N]
                              who may open the operator console (they must add a
                              passkey); the audit log of operator actions
  lawyers applications        applications waiting for verification (docs/lawyers.md)
  lawyers show LAWYER_ID      status, memberships, verifications and audit history
  lawyers verify LAWYER_ID --note TEXT [--checked census,colegio] [--bar NAME] [--number N]
                              verify her membership (valid 12 months; renews too)
  lawyers refuse LAWYER_ID --reason TEXT
                              refuse an application (the reason is emailed to her)
  lawyers suspend LAWYER_ID --reason TEXT | lawyers reinstate LAWYER_ID
  lawyers unverify|list|unlist LAWYER_ID
                              the console's switches; all audited, and a running
                              server sees them within DIRECTORY_REFRESH_MS
  lawyers photos --normalise  re-encode stored photos to a 512 px JPEG without
                              metadata; remove unreadable or over 40 megapixels
                              (a server does this at start too)
  reviews reports | reviews show REVIEW_ID
  reviews hide REVIEW_ID --reason R --note TEXT | reviews restore REVIEW_ID --note TEXT
  reviews keep REVIEW_ID [--note TEXT]
                              review moderation, as the console's Reviews tab: hiding and
                              restoring recompute the lawyer's average; all audited
  oauth clients | oauth grants [--user EMAIL] | oauth revoke GRANT_ID
                              AI apps connected to the MCP server (docs/mcp.md): the
                              clients, who granted what; revoking ends a grant's tokens
  users delete EMAIL          delete a person's account at their request: the same
                              refusals and erasures as the Account page, a confirmation
                              email, an audit entry (docs/operations.md)

start, serve, migrate, seed and import create the database DATABASE_URL names if it does
not exist; every other command needs it to exist already (it refuses, naming it).

Configuration comes from the environment (see README): DATABASE_URL, PORT, …`;

type Flags = Record<string, string | boolean | undefined>;

function out(json: boolean, data: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

function intFlag(flags: Flags, name: string, fallback: number, min: number, max: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new UsageError(`--${name} expects a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}`);
  return n;
}

async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

/**
 * For commands that read or change what a server holds (keys, firms, webhooks, mail, requests,
 * operators, lawyers, oauth, users): the database must exist already. Run against a DATABASE_URL that
 * names nothing (another directory, a shell without the server's settings) they used to create an
 * empty database and answer from it ("no mail"); now they refuse, name the database they looked
 * at and say how to point at the right one (exit 1). An existing database is brought up to date.
 */
async function withExistingDatabase(config: Config, command: string, json: boolean, fn: (db: Database) => Promise<number>): Promise<number> {
  const reason = await missingDatabaseReason(config.databaseUrl);
  if (reason !== null) {
    const where = describeDatabaseUrl(config.databaseUrl);
    const detail = `no Consulta database at ${where} (${reason}). \`consulta ${command}\` reads an existing database and creates none.`;
    const how =
      'Point DATABASE_URL at the database the server uses (the value `consulta serve` runs with; the default, sqlite:data/consulta.db, is relative to the directory you run in), or run `consulta migrate` to create a new, empty one.';
    if (json) out(true, { error: { code: 'no_database', detail, database: where } }, '');
    process.stderr.write(`consulta: ${detail}\n  ${how}\n`);
    return 1;
  }
  return withDatabase(config, async (database) => {
    await migrateToLatest(database);
    return fn(database);
  });
}

async function seed(config: Config, database: Database, flags: Flags, json: boolean, lawyers: number): Promise<void> {
  const seedValue = intFlag(flags, 'seed', 1, 0, 2 ** 31 - 1);
  const now = new Date();
  const referenceDate = typeof flags['reference-date'] === 'string' ? flags['reference-date'] : dateInZone(now.getTime(), 'Europe/Madrid');
  const parsed = Date.parse(`${referenceDate}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(referenceDate) || Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== referenceDate) {
    throw new UsageError('--reference-date expects a real calendar date, YYYY-MM-DD');
  }
  const { seedDemoDirectory } = await import('../domain/demo/seed.service.ts');
  const started = Date.now();
  const result = await seedDemoDirectory(database, {
    lawyers,
    seed: seedValue,
    referenceDate,
    now,
    onProgress: json ? undefined : progressReporter('seeding'),
  });
  const seconds = (Date.now() - started) / 1000;
  out(json, { lawyers: result.lawyers, seed: seedValue, reference_date: referenceDate, seconds }, `seeded ${result.lawyers.toLocaleString('en')} demo lawyers (seed ${seedValue}) in ${seconds.toFixed(1)} s`);
}

export async function run(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      lawyers: { type: 'string' },
      seed: { type: 'string' },
      'reference-date': { type: 'string' },
      // keys … / firms …
      as: { type: 'string' },
      test: { type: 'boolean' },
      tier: { type: 'string' },
      scopes: { type: 'string' },
      owner: { type: 'string' },
      firm: { type: 'string' },
      name: { type: 'string' },
      'expires-at': { type: 'string' },
      'allow-ip': { type: 'string' },
      publishable: { type: 'boolean' },
      origin: { type: 'string' },
      reason: { type: 'string' },
      // lawyers …
      note: { type: 'string' },
      checked: { type: 'string' },
      bar: { type: 'string' },
      number: { type: 'string' },
      normalise: { type: 'boolean' },
      clear: { type: 'boolean' },
      role: { type: 'string' },
      permissions: { type: 'string' },
      // webhooks …
      url: { type: 'string' },
      events: { type: 'string' },
      limit: { type: 'string' },
      // mail …
      to: { type: 'string' },
      last: { type: 'boolean' },
      // oauth …
      user: { type: 'string' },
      // backup …
      force: { type: 'boolean' },
    },
  });
  const json = flags.json === true;
  const [command, ...args] = positionals;
  if (!command || flags.help || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command || flags.help ? 0 : 2;
  }
  const config = loadConfig();

  switch (command) {
    case 'migrate': {
      const applied = await withDatabase(config, migrateToLatest);
      out(json, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
      return 0;
    }
    case 'seed': {
      const lawyers = intFlag(flags, 'lawyers', 300, 1, 1_000_000);
      await withDatabase(config, async (database) => {
        await migrateToLatest(database);
        await seed(config, database, flags, json, lawyers);
      });
      return 0;
    }
    case 'import': {
      const file = args[0];
      if (!file) throw new UsageError('import needs a FILE (JSON Lines)');
      if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
      const { ImportFailedError, importLawyers } = await import('../domain/directory/import.service.ts');
      const openLines = () => readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
      try {
        const result = await withDatabase(config, async (database) => {
          await migrateToLatest(database);
          return importLawyers(database, openLines, { now: new Date() });
        });
        out(json, result, `imported ${result.imported.toLocaleString('en')} lawyers from ${file}`);
        return 0;
      } catch (err) {
        if (!(err instanceof ImportFailedError)) throw err;
        if (json) out(true, { imported: 0, problems: err.totalIssues, issues: err.issues }, '');
        else {
          process.stderr.write(`${file}: ${err.message}\n`);
          for (const i of err.issues) process.stderr.write(`  line ${i.line}${i.pointer ? ` ${i.pointer}` : ''}: ${i.detail}\n`);
          if (err.totalIssues > err.issues.length) process.stderr.write(`  … and ${err.totalIssues - err.issues.length} more\n`);
        }
        return 1;
      }
    }
    case 'keys':
    case 'firms': {
      const runAccess = command === 'keys' ? (await import('./keys.commands.ts')).runKeysCommand : (await import('./firms.commands.ts')).runFirmsCommand;
      return withExistingDatabase(config, command, json, (database) => runAccess({ config, database, args, flags, json }));
    }
    case 'webhooks': {
      const { runWebhooksCommand } = await import('./webhooks.commands.ts');
      return withExistingDatabase(config, command, json, (database) => runWebhooksCommand({ config, database, args, flags, json }));
    }
    case 'operators':
    case 'lawyers': {
      const runOperator = command === 'operators' ? (await import('./operator.commands.ts')).runOperatorsCommand : (await import('./lawyers.commands.ts')).runLawyersCommand;
      return withExistingDatabase(config, command, json, (database) => runOperator({ config, database, args, flags, json }));
    }
    case 'reviews': {
      const { runReviewsCommand } = await import('./reviews.commands.ts');
      return withExistingDatabase(config, command, json, (database) => runReviewsCommand({ config, database, args, flags, json }));
    }
    case 'oauth': {
      const { runOAuthCommand } = await import('./oauth.commands.ts');
      return withExistingDatabase(config, command, json, (database) => runOAuthCommand({ config, database, args, flags, json }));
    }
    case 'users': {
      const { runUsersCommand } = await import('./users.commands.ts');
      return withExistingDatabase(config, command, json, (database) => runUsersCommand({ config, database, args, flags, json }));
    }
    case 'mail': {
      const { runMailCommand } = await import('./mail.commands.ts');
      return withExistingDatabase(config, command, json, (database) => runMailCommand({ config, database, args, flags, json }));
    }
    case 'backup': {
      // No migration: a backup taken before an upgrade must be the database as it was.
      const { runBackupCommand } = await import('./backup.commands.ts');
      return runBackupCommand({ config, args, flags, json });
    }
    case 'requests': {
      const [sub, requestId] = args;
      if (sub !== 'show' || !requestId) throw new UsageError('usage: consulta requests show REQUEST_ID');
      const { findLoggedRequest } = await import('../domain/access/request-log.ts');
      return withExistingDatabase(config, command, json, async (database) => {
        const entry = await findLoggedRequest(database, requestId);
        if (!entry) {
          if (json) out(true, { error: { code: 'not_found', detail: `no request ${requestId} in the log` } }, '');
          else process.stderr.write(`consulta: no request ${requestId} in the log (entries are kept ${config.requestLogRetentionDays} days)\n`);
          return 1;
        }
        out(json, entry, Object.entries(entry).map(([k, v]) => `${k.padEnd(12)} ${v === null ? '-' : String(v)}`).join('\n'));
        return 0;
      });
    }
    case 'start':
    case 'serve': {
      if (command === 'start' && config.demoLawyers > 0) {
        await withDatabase(config, async (database) => {
          await migrateToLatest(database);
          if ((await countLawyers(database.db)) === 0) await seed(config, database, flags, json, config.demoLawyers);
        });
      }
      const { applyHeapGrowth, startServer, stopOnSignals } = await import('../server.ts');
      const heapFlag = applyHeapGrowth(config);
      const server = await startServer(config);
      const log = (msg: string) => server.app.fastify.log.info(msg);
      server.app.fastify.log.info({ url: server.url, database: server.database.dialect, v8_heap: heapFlag ?? 'default' }, 'consulta listening');
      if (server.metricsUrl) server.app.fastify.log.info({ url: `${server.metricsUrl}/metrics` }, 'metrics admin listener');
      if (!json && process.stdout.isTTY) process.stdout.write(`Consulta is up: ${server.url}/ (API at ${config.baseUrl}, docs at ${config.siteUrl}/docs/api)\n`);
      const legal = legalDetailsNotice(config);
      if (legal) {
        server.app.fastify.log.warn({ missing: config.legal.missing, refused: refusesPeoplePages(config) }, 'legal details missing');
        if (!json) process.stderr.write(`${legal}\n`);
      }
      stopOnSignals(server, config.shutdownTimeoutMs, log);
      return -1; // keep running
    }
    default:
      throw new UsageError(`unknown command "${command}"; see consulta --help`);
  }
}

/**
 * What start-up says when LEGAL_* settings are unset (issue 25 item 18): which ones, that the legal
 * pages show demonstration values meanwhile, and whether people's pages are refused (production).
 */
export function legalDetailsNotice(config: Pick<Config, 'nodeEnv' | 'legal'>): string | null {
  const missing = config.legal.missing;
  if (missing.length === 0) return null;
  const list = missing.join(', ');
  return refusesPeoplePages(config)
    ? `consulta: NODE_ENV=production and the operator's legal details are missing (${list} not set): people's pages answer 503 "not open yet" until they are set (docs/operations.md#legal-details).`
    : `consulta: legal details missing (${list} not set): the legal notice and privacy pages show demonstration values. Set them before opening the site to the public; with NODE_ENV=production people's pages are refused without them (docs/operations.md#legal-details).`;
}

export async function cli(argv: string[]): Promise<void> {
  try {
    const code = await run(argv);
    if (code >= 0) process.exitCode = code;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      process.stderr.write(`consulta: ${(err as Error).message}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`consulta: configuration error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`consulta: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
