/**
 * The developer dashboard's getting-started checklist: six steps from a first test key to live
 * traffic, each done or not from what the database records, never from what a page remembers.
 *
 * Whose work counts (docs/dashboard.md#overview): the person's own keys and endpoints, and the
 * firm keys and endpoints they created themselves in a firm they still belong to. Keys and
 * endpoints other members of the firm made do not tick the person's steps: the checklist is about
 * what this person has done, and a firm's shared keys are the firm's pages' business.
 *
 * The steps record history: a revoked test key still means "you made a test key".
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  anyLoggedRequest,
  anyUsage,
  checklistKeys,
  findRequestLogSeenAt,
  firmIdsOfUser,
  hasChecklistEndpoint,
  markRequestLogSeen,
} from '../../db/repositories/getting-started.repository.ts';
import { REQUEST_LOG_DAYS } from './request-history.service.ts';

export const CHECKLIST_STEPS = ['test_key', 'first_request', 'log_seen', 'webhook', 'live', 'widget'] as const;
export type ChecklistStep = (typeof CHECKLIST_STEPS)[number];

export interface GettingStarted {
  /** Every step in order, done or not. */
  steps: Array<{ step: ChecklistStep; done: boolean }>;
  /** The first step not done yet; null when all are. */
  next: ChecklistStep | null;
  /** Whether the person has a live key at all (the last step's action is to make one, or to use it). */
  hasLiveKey: boolean;
}

export class GettingStartedService {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /** The checklist of one person. */
  async progress(userId: string): Promise<GettingStarted> {
    const db = this.deps.database.db;
    const firmIds = await firmIdsOfUser(db, userId);
    const [keys, hasEndpoint, seenAt] = await Promise.all([checklistKeys(db, userId, firmIds), hasChecklistEndpoint(db, userId, firmIds), findRequestLogSeenAt(db, userId)]);
    const all = keys.map((k) => k.id);
    const live = keys.filter((k) => k.mode === 'live').map((k) => k.id);
    const since = new Date(this.deps.clock.now().getTime() - REQUEST_LOG_DAYS * 86_400_000).toISOString();
    // The log holds 30 days; live traffic also leaves daily usage, kept longer, so a live
    // integration that has been quiet for a month still counts as having called the API.
    const [called, succeededLive] = await Promise.all([
      anyLoggedRequest(db, all, since).then((found) => found || anyUsage(db, live)),
      anyUsage(db, live, { succeeded: true }),
    ]);
    const done: Record<ChecklistStep, boolean> = {
      test_key: keys.some((k) => k.mode === 'test'),
      first_request: called,
      // Seen only means something once there was a request of theirs to see.
      log_seen: called && seenAt !== null,
      webhook: hasEndpoint,
      live: succeededLive,
      // Embedding the widget starts with its key (docs/widget.md).
      widget: keys.some((k) => k.kind === 'publishable'),
    };
    const steps = CHECKLIST_STEPS.map((step) => ({ step, done: done[step] }));
    return { steps, next: steps.find((s) => !s.done)?.step ?? null, hasLiveKey: live.length > 0 };
  }

  /**
   * Called when a request log page (a list or one request) is shown to the person: if it showed
   * a request made with one of their checklist keys, "see it in the log" is done, for good. The
   * rows' key ids are enough; only the first such view writes (and only until then reads).
   */
  async sawRequests(userId: string, shownKeyIds: ReadonlyArray<string | null>): Promise<void> {
    const shown = new Set(shownKeyIds.filter((id): id is string => id !== null));
    if (shown.size === 0) return;
    const db = this.deps.database.db;
    if ((await findRequestLogSeenAt(db, userId)) !== null) return;
    const mine = await checklistKeys(db, userId, await firmIdsOfUser(db, userId));
    if (!mine.some((k) => shown.has(k.id))) return;
    await markRequestLogSeen(db, userId, this.deps.clock.now().toISOString());
  }
}
