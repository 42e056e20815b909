/**
 * `consulta operators …` and `consulta lawyers …`: the operator's commands. Thin: parse, call
 * OperatorService, print. The command line acts as the operator and is named `cli` in the audit
 * log (every change is recorded there, as from the console). A running server sees a lawyer
 * change within DIRECTORY_REFRESH_MS. Exit codes: 0 ok, 1 refused or not found, 2 usage error.
 */
import { systemClock } from '../clock.ts';
import type { Actor } from '../domain/access/types.ts';
import type { AuditEntry } from '../domain/operator/audit.ts';
import { OperatorService, type LawyerStatus } from '../domain/operator/operator.service.ts';
import { AccessUsageError, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const CLI: Actor = { type: 'operator', by: { kind: 'cli' } };
const OPERATORS_USAGE = 'usage: consulta operators add|remove EMAIL | consulta operators list | consulta operators audit [--limit N]';
const LAWYERS_USAGE = 'usage: consulta lawyers verify|unverify|list|unlist|show LAWYER_ID';

function needOne(rest: string[], usage: string): string {
  if (rest.length !== 1 || !rest[0]) throw new AccessUsageError(usage);
  return rest[0];
}

function lawyerJson(l: LawyerStatus): Record<string, unknown> {
  return { id: l.id, name: l.name, city: l.citySlug, verified: l.verified, listed: l.listed, public: l.verified && l.listed, updated_at: l.updatedAt };
}

function lawyerText(l: LawyerStatus): string {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  return [
    ['id', l.id],
    ['name', l.name],
    ['city', l.cityName ?? l.citySlug],
    ['verified', yes(l.verified)],
    ['listed', yes(l.listed)],
    ['public', l.verified && l.listed ? 'yes (search, profile, availability, booking)' : 'no (the API answers 404)'],
  ]
    .map(([k, v]) => `${k!.padEnd(10)}${v}`)
    .join('\n');
}

function auditJson(e: AuditEntry): Record<string, unknown> {
  return {
    id: e.id,
    at: e.at,
    actor: e.actor.kind === 'cli' ? { type: 'cli' } : { type: 'user', user_id: e.actor.userId, email: e.actor.email },
    action: e.action,
    target: e.target,
    details: e.details,
    request_id: e.requestId,
  };
}

function services(ctx: AccessCommandContext, run: (operator: OperatorService) => Promise<number>): Promise<number> {
  return runAccessCommand(ctx, async ({ accounts, keys }) => {
    if (ctx.flags.as !== undefined) throw new AccessUsageError('--as does not apply: operator commands act as the operator');
    return run(new OperatorService({ database: ctx.database, clock: systemClock, keys, accounts }));
  });
}

/** `consulta operators <add|remove|list|audit> …` */
export function runOperatorsCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  return services(ctx, async (operator) => {
    switch (sub) {
      case 'add': {
        const { user, added } = await operator.addOperator(CLI, needOne(rest, OPERATORS_USAGE));
        print(ctx.json, { user_id: user.id, email: user.email, added }, added ? `${user.email} is now an operator (they add a passkey on first opening /operator)` : `${user.email} already is an operator`);
        return 0;
      }
      case 'remove': {
        const { user } = await operator.removeOperator(CLI, needOne(rest, OPERATORS_USAGE));
        print(ctx.json, { user_id: user.id, email: user.email, removed: true }, `${user.email} is no longer an operator`);
        return 0;
      }
      case 'list': {
        if (rest.length > 0) throw new AccessUsageError(OPERATORS_USAGE);
        const all = await operator.operators(CLI);
        print(ctx.json, { operators: all.map((o) => ({ user_id: o.userId, email: o.email, added_at: o.addedAt })) }, all.length ? all.map((o) => `${o.email}  since ${o.addedAt}`).join('\n') : 'no operators');
        return 0;
      }
      case 'audit': {
        if (rest.length > 0) throw new AccessUsageError(OPERATORS_USAGE);
        const raw = stringFlag(ctx.flags, 'limit');
        if (raw !== undefined && (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 50)) throw new AccessUsageError('--limit expects a whole number from 1 to 50');
        const entries = (await operator.audit(CLI)).entries.slice(0, raw === undefined ? 20 : Number(raw));
        const lines = entries.map((e) => [e.at, e.actor.kind === 'cli' ? 'cli' : e.actor.email, e.action, e.target.type, e.target.label ?? e.target.id, JSON.stringify(e.details)].join('  '));
        print(ctx.json, { entries: entries.map(auditJson) }, lines.length ? lines.join('\n') : 'no entries');
        return 0;
      }
      default:
        throw new AccessUsageError(OPERATORS_USAGE);
    }
  });
}

/** `consulta lawyers <verify|unverify|list|unlist|show> LAWYER_ID` */
export function runLawyersCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const change: Record<string, { verified?: boolean; listed?: boolean }> = {
    verify: { verified: true },
    unverify: { verified: false },
    list: { listed: true },
    unlist: { listed: false },
  };
  return services(ctx, async (operator) => {
    if (sub === 'show') {
      const { lawyer, history } = await operator.lawyer(CLI, needOne(rest, LAWYERS_USAGE));
      print(ctx.json, { ...lawyerJson(lawyer), history: history.map(auditJson) }, lawyerText(lawyer));
      return 0;
    }
    const wanted = sub !== undefined && Object.hasOwn(change, sub) ? change[sub] : undefined;
    if (!wanted) throw new AccessUsageError(LAWYERS_USAGE);
    const { lawyer, changed } = await operator.setLawyerStatus(CLI, needOne(rest, LAWYERS_USAGE), wanted);
    print(ctx.json, { ...lawyerJson(lawyer), changed }, `${changed ? 'Changed' : 'Unchanged (it already was so)'}:\n${lawyerText(lawyer)}`);
    return 0;
  });
}
