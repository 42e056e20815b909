/**
 * The request log as its owners see it (the dashboard): a person's keys' requests, or a firm's
 * for members who may read usage, over the last 30 days, newest first, a page at a time, with
 * filters; and one request. Anyone else's request reads exactly like one that does not exist.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { listApiKeys } from '../../db/repositories/api-key.repository.ts';
import { findRequest, isFiltered, listOwnerRequests, ownerScanBoundary, type OwnerRequestsQuery } from '../../db/repositories/request-log.repository.ts';
import type { RequestLogTable } from '../../db/schema.ts';
import { forbidden, invalidRequest, notFound } from '../errors.ts';
import type { AccountsService } from './accounts.service.ts';
import { toRecord } from './keys.service.ts';
import type { Actor, ApiKeyRecord } from './types.ts';

export const REQUEST_LOG_DAYS = 30;
export const REQUEST_LOG_PAGE = 50;
/**
 * A filtered page looks at no more than this many of the owner's requests (newest first from
 * its cursor): a filter that matches little would otherwise read the whole 30 days for one
 * page. When the window runs out first, the page says how far back it searched and links on.
 */
export const REQUEST_LOG_SCAN = 10_000;
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '429', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

const STATUS_RANGES: Record<StatusClass, { from: number; to: number }> = {
  '2xx': { from: 200, to: 299 },
  '3xx': { from: 300, to: 399 },
  '4xx': { from: 400, to: 499 },
  '429': { from: 429, to: 429 },
  '5xx': { from: 500, to: 599 },
};

/** Whose requests: a person's own keys, or a firm's. */
export type LogOwnerRef = { type: 'user' } | { type: 'firm'; slug: string };

export interface RequestFilters {
  keyId?: string;
  mode?: 'live' | 'test';
  /** `widget`: made with a publishable key (the booking widget's frame and pages); `server`: with a secret key. */
  source?: 'widget' | 'server';
  status?: StatusClass;
  /** Paths starting with this (`/api/v1/bookings`). */
  path?: string;
  /** The page after this one (opaque). */
  cursor?: string;
}

export interface RequestPage {
  rows: RequestLogTable[];
  /** The owner's keys, for the key filter and for naming each row's key. */
  keys: ApiKeyRecord[];
  /** Cursor of the next (older) page, or null at the end. */
  next: string | null;
  /**
   * Set when a filtered page stopped at its scan window (REQUEST_LOG_SCAN requests) before
   * finding a full page: the time it searched back to. Older requests may still match (`next`).
   */
  searchedTo: string | null;
}

const encodeCursor = (row: Pick<RequestLogTable, 'at' | 'request_id'>) => Buffer.from(`${row.at}|${row.request_id}`).toString('base64url');
function decodeCursor(cursor: string): { at: string; requestId: string } {
  const [at, requestId] = Buffer.from(cursor.slice(0, 200), 'base64url').toString('utf8').split('|');
  if (!at || !requestId || Number.isNaN(Date.parse(at))) throw invalidRequest('the page link is not valid', [{ pointer: '/cursor', detail: 'start again from the first page' }]);
  return { at, requestId };
}

export class RequestHistoryService {
  constructor(private readonly deps: { database: Database; clock: Clock; accounts: AccountsService }) {}

  /** The oldest time the dashboard shows. */
  private since(): string {
    return new Date(this.deps.clock.now().getTime() - REQUEST_LOG_DAYS * 86_400_000).toISOString();
  }

  /** The keys whose requests and usage the actor may read for this owner (a firm: `usage:read`). */
  async ownerKeys(actor: Actor, ref: LogOwnerRef): Promise<ApiKeyRecord[]> {
    return (await this.owner(actor, ref)).keys;
  }

  /** The owner's id and keys, if the actor may read its requests (a firm: `usage:read`). */
  private async owner(actor: Actor, ref: LogOwnerRef): Promise<{ type: 'user' | 'firm'; id: string; keys: ApiKeyRecord[] }> {
    const db = this.deps.database.db;
    if (ref.type === 'user') {
      if (actor.type !== 'user') throw invalidRequest('the operator reads requests by id', []);
      return { type: 'user', id: actor.userId, keys: (await listApiKeys(db, { ownerUserId: actor.userId })).map(toRecord) };
    }
    const { firm } = await this.deps.accounts.resolveFirm(actor, ref.slug);
    if (!(await this.deps.accounts.can(actor, firm.id, 'usage:read'))) throw forbidden(`you may not read the requests of ${firm.slug}`);
    return { type: 'firm', id: firm.id, keys: (await listApiKeys(db, { ownerFirmId: firm.id })).map(toRecord) };
  }

  /** One page of the owner's requests, newest first. A key that is not the owner's is not found. */
  async page(actor: Actor, ref: LogOwnerRef, filters: RequestFilters = {}): Promise<RequestPage> {
    const owner = await this.owner(actor, ref);
    if (filters.keyId !== undefined && !owner.keys.some((k) => k.id === filters.keyId)) throw notFound(`no key ${filters.keyId}`);
    const since = this.since();
    // A key never changes kind, so its requests are the widget's exactly when the key is publishable.
    const widgetKeys = owner.keys.filter((k) => k.kind === 'publishable').map((k) => k.id);
    const query: OwnerRequestsQuery = {
      ownerType: owner.type,
      ownerId: owner.id,
      since,
      keyId: filters.keyId,
      keyIn: filters.source === 'widget' ? widgetKeys : undefined,
      keyNotIn: filters.source === 'server' ? widgetKeys : undefined,
      test: filters.mode === undefined ? undefined : filters.mode === 'test',
      status: filters.status ? STATUS_RANGES[filters.status] : undefined,
      pathPrefix: filters.path ? filters.path.slice(0, 300) : undefined,
      before: filters.cursor ? decodeCursor(filters.cursor) : undefined,
      limit: REQUEST_LOG_PAGE + 1,
      scanLimit: REQUEST_LOG_SCAN,
    };
    const db = this.deps.database.db;
    const rows = await listOwnerRequests(db, query);
    if (rows.length > REQUEST_LOG_PAGE) {
      const shown = rows.slice(0, REQUEST_LOG_PAGE);
      return { rows: shown, keys: owner.keys, next: encodeCursor(shown.at(-1)!), searchedTo: null };
    }
    const filtered = isFiltered(query);
    // A short filtered page: the end of the 30 days, or only the end of its scan window?
    const boundary = filtered ? await ownerScanBoundary(db, query, REQUEST_LOG_SCAN) : undefined;
    if (!boundary) return { rows, keys: owner.keys, next: null, searchedTo: null };
    return { rows, keys: owner.keys, next: encodeCursor({ at: boundary.at, request_id: boundary.requestId }), searchedTo: boundary.at };
  }

  /** One of the owner's requests (within the retention window); anyone else's is not found. */
  async get(actor: Actor, ref: LogOwnerRef, requestId: string): Promise<{ row: RequestLogTable; key: ApiKeyRecord | null }> {
    const owner = await this.owner(actor, ref);
    const row = typeof requestId === 'string' && /^req_[0-9a-f]{32}$/.test(requestId) ? await findRequest(this.deps.database.db, requestId) : undefined;
    if (!row || row.owner_type !== owner.type || row.owner_id !== owner.id || row.at < this.since()) throw notFound(`no request ${requestId}`);
    return { row, key: owner.keys.find((k) => k.id === row.key_id) ?? null };
  }
}
