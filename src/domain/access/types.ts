/**
 * Shared vocabulary of the access layer: API keys, scopes, tiers, owners, suspensions.
 * Keys, firms, rate limits and the HTTP auth plugin all speak these types.
 */

export const SCOPES = ['lawyers:read', 'availability:read', 'reviews:read', 'reference:read', 'bookings:initiate', 'bookings:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const TIERS = ['free', 'partner', 'internal'] as const;
export type Tier = (typeof TIERS)[number];

export type KeyMode = 'live' | 'test';

export const FIRM_ROLES = ['owner', 'admin', 'member'] as const;
export type FirmRole = (typeof FIRM_ROLES)[number];

/** Permissions a firm `member` can be granted; owners and admins hold them all by role. */
export const FIRM_PERMISSIONS = ['keys:manage', 'webhooks:manage', 'usage:read'] as const;
export type FirmPermission = (typeof FIRM_PERMISSIONS)[number];

export type SuspendedBy = 'firm' | 'operator';

export interface Suspension {
  by: SuspendedBy;
  reason: string;
  at: string;
}

export type KeyOwner = { type: 'user'; userId: string; email: string } | { type: 'firm'; firmId: string; slug: string };

/** An API key as the access layer sees it (never the secret). */
export interface ApiKeyRecord {
  id: string;
  /** The first characters of the key, safe to display (`svc_test_4Fh2`). */
  prefix: string;
  name: string | null;
  mode: KeyMode;
  tier: Tier;
  scopes: Scope[];
  owner: KeyOwner;
  createdByUserId: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  suspension: Suspension | null;
  /** IPv4/IPv6 addresses and CIDR ranges; null means any address. */
  allowedIps: string[] | null;
  createdAt: string;
  /** `secret` (svc_…) or `publishable` (pk_…: the booking widget's, docs/widget.md). */
  kind: 'secret' | 'publishable';
  /** Publishable keys: the web origins it works from (CORS and frame-ancestors); null for secret keys. */
  allowedOrigins: string[] | null;
  /** Publishable keys: the key itself, public by design (the snippet shows it); null for secret keys. */
  publicToken: string | null;
}

/** What a publishable key may do: read the directory and hold a time; never read intents or manage anything. */
export const PUBLISHABLE_SCOPES = ['lawyers:read', 'availability:read', 'reviews:read', 'reference:read', 'bookings:initiate'] as const satisfies readonly Scope[];

/**
 * Who, behind the operator actor, acted: a person in the operator console (with the request's
 * X-Request-Id), or the command line at the server. Operator actions are audited under this name.
 */
export type OperatorIdentity = { kind: 'user'; userId: string; email: string; requestId: string | null } | { kind: 'cli' };

/**
 * Who performs a management action: the operator (CLI, support) or a signed-in user. An operator
 * actor without `by` is the command line.
 */
export type Actor = { type: 'operator'; by?: OperatorIdentity } | { type: 'user'; userId: string };

/** Where a key stands right now; only `active` keys authenticate (see keyStatus in api-key.ts). */
export type KeyStatus = 'active' | 'revoked' | 'expired' | 'suspended';

/** A firm membership as management screens and the CLI show it. */
export interface FirmMember {
  userId: string;
  email: string;
  name: string | null;
  role: FirmRole;
  /** Granted permissions; meaningful for `member`s only (owners and admins hold all by role). */
  permissions: FirmPermission[];
  createdAt: string;
}
