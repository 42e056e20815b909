/**
 * The three consent levels an AI app can be granted, cumulative: each includes the ones before
 * it. They are the OAuth scopes of the MCP server, and the tools each one opens are listed in
 * DESIGN.md §8 (src/mcp/tools.ts declares each tool's level).
 */

export const LEVELS = ['directory:read', 'slots:hold', 'my-bookings:read'] as const;
export type Level = (typeof LEVELS)[number];

/** Whether `value` names a level. */
export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** The scopes a level grants: itself and every level before it. */
export function scopesOfLevel(level: Level): Level[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/**
 * The level a request asks for: the highest level named in its space-separated scope, or the
 * first level when it names none (a client that asks for nothing gets the least).
 */
export function requestedLevel(scope: string | undefined): Level {
  const asked = new Set((scope ?? '').split(/\s+/).filter(Boolean));
  let level: Level = LEVELS[0];
  for (const l of LEVELS) if (asked.has(l)) level = l;
  return level;
}

/** The highest level among granted scopes, or null when none is granted. */
export function highestLevel(scopes: Iterable<string>): Level | null {
  const granted = new Set(scopes);
  let level: Level | null = null;
  for (const l of LEVELS) if (granted.has(l)) level = l;
  return level;
}
