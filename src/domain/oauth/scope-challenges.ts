/**
 * The level the MCP server last told an app it needs for a person: the level of the tool a 403
 * insufficient_scope refused (docs/mcp.md#consent-levels). The consent page preselects it rather
 * than whatever the app asks for: some clients ignore the challenge's `scope` and ask for every
 * level (the MCP Inspector does), and a person clicking Allow must not grant more than the tools
 * the app tried need.
 *
 * Kept one hour in the authorization server's own table (model `ScopeChallenge`, one row per
 * person and app, with its account and client ids so that deleting either deletes it).
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findOAuthRecord, upsertOAuthRecord } from '../../db/repositories/oauth.repository.ts';
import { HOUR_MS } from '../access/limits.ts';
import { highestLevel, type Level } from './levels.ts';

const MODEL = 'ScopeChallenge';
const key = (userId: string, clientId: string) => `${userId} ${clientId}`;

export class ScopeChallenges {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Records the challenge's scope (space-separated) for this person and app. */
  async record(userId: string, clientId: string, scope: string): Promise<void> {
    const level = highestLevel(scope.split(' '));
    if (level === null) return;
    const now = this.clock.now();
    await upsertOAuthRecord(this.database.db, {
      model: MODEL,
      id: key(userId, clientId),
      payload: JSON.stringify({ level }),
      grant_id: null,
      account_id: userId,
      client_id: clientId,
      uid: null,
      expires_at: new Date(now.getTime() + HOUR_MS).toISOString(),
      consumed_at: null,
      last_used_at: null,
      created_at: now.toISOString(),
    });
  }

  /** The level last challenged for this person and app within the hour, or null. */
  async latest(userId: string, clientId: string): Promise<Level | null> {
    const row = await findOAuthRecord(this.database.db, MODEL, key(userId, clientId));
    if (!row || (row.expires_at !== null && row.expires_at <= this.clock.now().toISOString())) return null;
    return highestLevel([(JSON.parse(row.payload) as { level: string }).level]);
  }
}
