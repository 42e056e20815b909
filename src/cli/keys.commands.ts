/**
 * `consulta keys …` (and the helpers `firms …` shares). Thin: parse, call KeysService, print.
 * The CLI acts as the operator unless `--as EMAIL` names a user, so firm rules can be exercised
 * from the command line. Exit codes: 0 ok, 1 refused or failed, 2 usage error (including values
 * the service rejects as invalid_request).
 */
import pino from 'pino';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { AccountsService } from '../domain/access/accounts.service.ts';
import { keyStatus } from '../domain/access/api-key.ts';
import { KeysService, type CreateKeyOptions, type KeyOwnerRef } from '../domain/access/keys.service.ts';
import type { Actor, ApiKeyRecord } from '../domain/access/types.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import { normalizeEmail } from '../domain/identity/email-address.ts';
import { createMailer, type Mailer } from '../domain/notify/mailer.ts';
import { Notifier } from '../domain/notify/notifier.ts';

export type Flags = Record<string, string | boolean | undefined>;

export interface AccessCommandContext {
  config: Config;
  database: Database;
  /** Positionals after the command word (`create`, `KEY_ID`, …). */
  args: string[];
  flags: Flags;
  json: boolean;
}

/** A command-line mistake: printed with exit code 2. */
export class AccessUsageError extends Error {}

export interface AccessServices {
  accounts: AccountsService;
  keys: KeysService;
  mailer: Mailer;
}

/** The services a CLI command needs, with a mailer from the configuration (logs to stderr without SMTP_URL). */
export function accessServices(config: Config, database: Database): AccessServices {
  const logger = pino({ level: config.logLevel === 'silent' ? 'silent' : 'info', base: undefined }, pino.destination(2));
  const mailer = createMailer(config, logger);
  const notifier = new Notifier({ database, mailer, clock: systemClock, logger });
  const accounts = new AccountsService({ database, clock: systemClock, notifier });
  return { accounts, keys: new KeysService({ database, clock: systemClock, accounts }), mailer };
}

/** The operator, or the user named by `--as EMAIL` (who must exist). */
export async function resolveActor(accounts: AccountsService, flags: Flags): Promise<Actor> {
  const as = flags.as;
  if (as === undefined) return { type: 'operator' };
  if (typeof as !== 'string' || as.trim() === '') throw new AccessUsageError('--as expects an email address');
  const user = await accounts.findUserByEmail(as);
  if (!user) throw notFound(`no user ${normalizeEmail(as, '/as')}`);
  return { type: 'user', userId: user.id };
}

/** A string option's value, or undefined when absent. */
export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AccessUsageError(`--${name} expects a value`);
  return value;
}

/** A comma-separated list (`a,b, c`), blanks dropped. */
export function listValue(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Prints JSON (one line) with --json, else the human text. */
export function print(json: boolean, data: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

/**
 * Runs a command body, turning refusals into output and exit codes: DomainErrors print their
 * code, detail and field errors (as `{"error": …}` on stdout with --json), usage errors exit 2.
 */
export async function runAccessCommand(ctx: AccessCommandContext, body: (services: AccessServices, actor: Actor) => Promise<number>): Promise<number> {
  const services = accessServices(ctx.config, ctx.database);
  try {
    const actor = await resolveActor(services.accounts, ctx.flags);
    return await body(services, actor);
  } catch (err) {
    if (err instanceof AccessUsageError) {
      process.stderr.write(`consulta: ${err.message}\n`);
      return 2;
    }
    if (!(err instanceof DomainError)) throw err;
    if (ctx.json) print(true, { error: { code: err.code, detail: err.detail, errors: err.errors ?? [] } }, '');
    process.stderr.write(`consulta: ${err.detail} (${err.code})\n`);
    for (const e of err.errors ?? []) process.stderr.write(`  ${e.pointer}: ${e.detail}\n`);
    return err.code === 'invalid_request' ? 2 : 1;
  } finally {
    await services.mailer.close();
  }
}

/** A key as the CLI prints it with --json (snake_case, like the API; never the hash). */
export function keyJson(key: ApiKeyRecord, now: Date): Record<string, unknown> {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    mode: key.mode,
    tier: key.tier,
    scopes: key.scopes,
    owner: key.owner.type === 'user' ? { type: 'user', id: key.owner.userId, email: key.owner.email } : { type: 'firm', id: key.owner.firmId, slug: key.owner.slug },
    status: keyStatus(key, now),
    created_by_user_id: key.createdByUserId,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    suspension: key.suspension,
    allowed_ips: key.allowedIps,
    kind: key.kind,
    allowed_origins: key.allowedOrigins,
  };
}

function ownerText(key: ApiKeyRecord): string {
  return key.owner.type === 'user' ? `user ${key.owner.email}` : `firm ${key.owner.slug}`;
}

function keyText(key: ApiKeyRecord, now: Date): string {
  const rows: Array<[string, string]> = [
    ['id', key.id],
    ['prefix', `${key.prefix}…`],
    ['name', key.name ?? '(none)'],
    ['owner', ownerText(key)],
    ['mode', key.mode],
    ['tier', key.tier],
    ['scopes', key.scopes.join(', ')],
    ['status', keyStatus(key, now)],
    ['created', key.createdAt],
    ['expires', key.expiresAt ?? 'never'],
    ['allowed IPs', key.allowedIps ? key.allowedIps.join(', ') : 'any'],
  ];
  if (key.kind === 'publishable') rows.push(['kind', 'publishable (booking widget)'], ['origins', (key.allowedOrigins ?? []).join(', ')]);
  if (key.revokedAt) rows.push(['revoked', key.revokedAt]);
  if (key.suspension) rows.push(['suspended', `by ${key.suspension.by} at ${key.suspension.at}: ${key.suspension.reason}`]);
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n');
}

function needArg(args: string[], index: number, what: string): string {
  const value = args[index];
  if (value === undefined || value === '') throw new AccessUsageError(what);
  return value;
}

async function createKey(ctx: AccessCommandContext, services: AccessServices, actor: Actor): Promise<number> {
  const { flags, json } = ctx;
  const ownerEmail = stringFlag(flags, 'owner');
  const firmSlug = stringFlag(flags, 'firm');
  if (ownerEmail !== undefined && firmSlug !== undefined) throw new AccessUsageError('keys create takes --owner EMAIL or --firm SLUG, not both');
  let owner: KeyOwnerRef;
  if (firmSlug !== undefined) owner = { firmSlug };
  else if (ownerEmail !== undefined) owner = { ownerEmail };
  else if (actor.type === 'user') owner = { ownerEmail: (await services.accounts.findUserById(actor.userId))!.email };
  else throw new AccessUsageError('keys create needs --owner EMAIL or --firm SLUG');
  const scopes = stringFlag(flags, 'scopes');
  const allowIp = stringFlag(flags, 'allow-ip');
  const options: CreateKeyOptions = {
    mode: flags.test === true ? 'test' : 'live',
    tier: stringFlag(flags, 'tier'),
    scopes: scopes === undefined ? undefined : listValue(scopes),
    name: stringFlag(flags, 'name') ?? null,
    expiresAt: stringFlag(flags, 'expires-at') ?? null,
    allowedIps: allowIp === undefined ? null : listValue(allowIp),
  };
  const origin = stringFlag(flags, 'origin');
  if (flags.publishable === true) {
    options.publishable = true;
    options.origins = origin === undefined ? [] : listValue(origin);
  } else if (origin !== undefined) throw new AccessUsageError('--origin applies to publishable keys: add --publishable');
  const { key, token } = await services.keys.create(actor, owner, options);
  const now = new Date();
  if (key.kind === 'publishable') {
    print(
      json,
      { ...keyJson(key, now), token },
      [
        `Created publishable ${key.mode} key ${key.id} for ${ownerText(key)}.`,
        '',
        'Publishable key — safe in a page\'s source, works only from the origins listed; the dashboard shows it again:',
        '',
        `  ${token}`,
        '',
        keyText(key, now),
      ].join('\n'),
    );
    return 0;
  }
  print(
    json,
    { ...keyJson(key, now), token },
    [
      `Created ${key.mode} key ${key.id} for ${ownerText(key)} (tier ${key.tier}).`,
      '',
      'API key — shown this once, it cannot be recovered. Store it now, somewhere secret:',
      '',
      `  ${token}`,
      '',
      keyText(key, now),
    ].join('\n'),
  );
  return 0;
}

const KEYS_USAGE = 'keys create|list|show|revoke|suspend|unsuspend|set-tier|set-allowlist (see consulta --help)';

/** `consulta keys <subcommand> …` */
export async function runKeysCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const { flags, json } = ctx;
  if (!sub) {
    process.stderr.write(`consulta: ${KEYS_USAGE}\n`);
    return 2;
  }
  return runAccessCommand(ctx, async (services, actor) => {
    const now = () => new Date();
    const show = (key: ApiKeyRecord, verb: string) => {
      print(json, keyJson(key, now()), `${verb ? `${verb}\n` : ''}${keyText(key, now())}`);
      return 0;
    };
    switch (sub) {
      case 'create':
        return createKey(ctx, services, actor);
      case 'list': {
        const ownerEmail = stringFlag(flags, 'owner');
        const firmSlug = stringFlag(flags, 'firm');
        const keys = await services.keys.list(actor, { ownerEmail, firmSlug });
        const lines = keys.map((k) =>
          [k.id, `${k.prefix}…`.padEnd(18), k.mode.padEnd(4), k.tier.padEnd(8), keyStatus(k, now()).padEnd(9), ownerText(k), k.name ? `"${k.name}"` : ''].join('  '),
        );
        print(json, { keys: keys.map((k) => keyJson(k, now())) }, keys.length ? lines.join('\n') : 'no keys');
        return 0;
      }
      case 'show':
        return show(await services.keys.get(actor, needArg(rest, 0, 'keys show needs a KEY_ID')), '');
      case 'revoke':
        return show(await services.keys.revoke(actor, needArg(rest, 0, 'keys revoke needs a KEY_ID')), 'Revoked: the key no longer authenticates.');
      case 'suspend': {
        const id = needArg(rest, 0, 'keys suspend needs a KEY_ID');
        const reason = stringFlag(flags, 'reason');
        if (reason === undefined) throw new AccessUsageError('keys suspend needs --reason R');
        return show(await services.keys.suspend(actor, id, reason), 'Suspended: the key is refused until the suspension is lifted.');
      }
      case 'unsuspend':
        return show(await services.keys.unsuspend(actor, needArg(rest, 0, 'keys unsuspend needs a KEY_ID')), 'Not suspended.');
      case 'set-tier': {
        const id = needArg(rest, 0, 'keys set-tier needs KEY_ID TIER');
        return show(await services.keys.setTier(actor, id, needArg(rest, 1, 'keys set-tier needs KEY_ID TIER')), 'Tier set.');
      }
      case 'set-allowlist': {
        const id = needArg(rest, 0, 'keys set-allowlist needs KEY_ID and CIDR,… or --clear');
        const list = rest[1];
        if (flags.clear === true && list !== undefined) throw new AccessUsageError('keys set-allowlist takes a list or --clear, not both');
        if (flags.clear !== true && list === undefined) throw new AccessUsageError('keys set-allowlist needs CIDR,… or --clear');
        const key = await services.keys.setAllowList(actor, id, flags.clear === true ? null : listValue(list!));
        return show(key, key.allowedIps ? 'Allow-list set.' : 'Allow-list cleared: any address may use the key.');
      }
      default:
        throw new AccessUsageError(`unknown keys command "${sub}"; ${KEYS_USAGE}`);
    }
  });
}
