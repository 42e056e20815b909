/**
 * `consulta operators …`: the operator's commands (`consulta lawyers …` is lawyers.commands.ts). Thin: parse, call
 * OperatorService, print. The command line acts as the operator and is named `cli` in the audit
 * log (every change is recorded there, as from the console). A running server sees a lawyer
 * change within DIRECTORY_REFRESH_MS. Exit codes: 0 ok, 1 refused or not found, 2 usage error.
 */
import { systemClock } from '../clock.ts';
import type { Actor } from '../domain/access/types.ts';
import type { AuditEntry } from '../domain/operator/audit.ts';
import { OperatorService } from '../domain/operator/operator.service.ts';
import { AccessUsageError, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const CLI: Actor = { type: 'operator', by: { kind: 'cli' } };
const OPERATORS_USAGE = 'usage: consulta operators add|remove EMAIL | consulta operators list | consulta operators audit [--limit N]';

function needOne(rest: string[], usage: string): string {
  if (rest.length !== 1 || !rest[0]) throw new AccessUsageError(usage);
  return rest[0];
}



/** An audit entry as the CLI prints it with --json. */
export function auditJson(e: AuditEntry): Record<string, unknown> {
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
