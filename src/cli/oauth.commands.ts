/**
 * `consulta oauth clients|grants|revoke`: the operator's view of the AI apps people connected to
 * the MCP server. Thin: parse, call ConnectedAppsService, print. A revoked grant's refresh token
 * fails at once; its access token fails on the next call (a running server within its 1 s token
 * cache). Exit codes: 0 ok, 1 not found, 2 usage error.
 */
import { systemClock } from '../clock.ts';
import { notFound } from '../domain/errors.ts';
import { normalizeEmail } from '../domain/identity/email-address.ts';
import { ConnectedAppsService, type ClientRecord, type GrantRecord } from '../domain/oauth/connected-apps.service.ts';
import { AccessUsageError, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const USAGE = 'usage: consulta oauth clients | consulta oauth grants [--user EMAIL] | consulta oauth revoke GRANT_ID';

function clientJson(c: ClientRecord): Record<string, unknown> {
  return { client_id: c.clientId, client_name: c.clientName, kind: c.kind, redirect_hosts: c.redirectHosts, since: c.since, grants: c.grants };
}

function grantJson(g: GrantRecord): Record<string, unknown> {
  return {
    grant_id: g.grantId,
    user: { id: g.userId, email: g.userEmail },
    client_id: g.clientId,
    client_name: g.clientName,
    kind: g.kind,
    redirect_host: g.redirectHost,
    levels: g.levels,
    granted_at: g.grantedAt,
    last_used_at: g.lastUsedAt,
  };
}

/** `consulta oauth <clients|grants|revoke> …` */
export function runOAuthCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  // Checked before runAccessCommand would look the --as user up.
  if (ctx.flags.as !== undefined) {
    process.stderr.write('consulta: --as does not apply: oauth commands act as the operator\n');
    return Promise.resolve(2);
  }
  return runAccessCommand(ctx, async ({ accounts }) => {
    const apps = new ConnectedAppsService({ database: ctx.database, clock: systemClock });
    if (sub !== 'grants' && ctx.flags.user !== undefined) throw new AccessUsageError(USAGE);
    switch (sub) {
      case 'clients': {
        if (rest.length > 0) throw new AccessUsageError(USAGE);
        const clients = await apps.listClients();
        const lines = clients.map((c) => [c.clientId, c.kind, JSON.stringify(c.clientName), c.redirectHosts.join(',') || '-', `since ${c.since}`, `${c.grants} grant${c.grants === 1 ? '' : 's'}`].join('  '));
        print(ctx.json, { clients: clients.map(clientJson) }, lines.length ? lines.join('\n') : 'no clients');
        return 0;
      }
      case 'grants': {
        if (rest.length > 0) throw new AccessUsageError(USAGE);
        const email = stringFlag(ctx.flags, 'user');
        let userId: string | undefined;
        if (email !== undefined) {
          const user = await accounts.findUserByEmail(email);
          if (!user) throw notFound(`no user ${normalizeEmail(email, '/user')}`);
          userId = user.id;
        }
        const grants = await apps.listAll(userId);
        const lines = grants.map((g) => [g.grantId, g.userEmail ?? g.userId ?? '-', JSON.stringify(g.clientName), g.levels.join(' ') || '-', `granted ${g.grantedAt}`, `last used ${g.lastUsedAt ?? 'never'}`].join('  '));
        print(ctx.json, { grants: grants.map(grantJson) }, lines.length ? lines.join('\n') : 'no grants');
        return 0;
      }
      case 'revoke': {
        if (rest.length !== 1 || !rest[0]) throw new AccessUsageError(USAGE);
        await apps.revokeAny(rest[0]);
        print(ctx.json, { grant_id: rest[0], revoked: true }, `grant ${rest[0]} revoked: its tokens no longer work (a running server stops accepting them within 1 s)`);
        return 0;
      }
      default:
        throw new AccessUsageError(USAGE);
    }
  });
}
