/** Stored notifications (the in-app inbox); each is also emailed, and marked when that succeeded. */
import type { NotificationTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** A notification with the address it is emailed to. */
export interface NotificationWithEmail extends NotificationTable {
  email: string;
}

/** Stores notifications (in the caller's transaction). */
export async function insertNotifications(db: Executor, rows: NotificationTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('notifications').values(rows).execute();
}

/** The given notifications joined with their recipients' email addresses. */
export function findNotificationsWithEmail(db: Executor, ids: string[]): Promise<NotificationWithEmail[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('notifications')
    .innerJoin('users', 'users.id', 'notifications.user_id')
    .selectAll('notifications')
    .select('users.email')
    .where('notifications.id', 'in', ids)
    .orderBy('notifications.created_at')
    .orderBy('notifications.id')
    .execute();
}

/** Records that the mail server accepted the notification's email. */
export async function markNotificationEmailed(db: Executor, id: string, atIso: string): Promise<void> {
  await db.updateTable('notifications').set({ emailed_at: atIso }).where('id', '=', id).where('emailed_at', 'is', null).execute();
}

/** A user's notifications, newest first. */
export function listNotificationsForUser(db: Executor, userId: string, limit = 50): Promise<NotificationTable[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** A user's notifications about one firm, newest first. */
export function listFirmNotificationsForUser(db: Executor, userId: string, firmId: string, kinds: readonly string[], limit = 50): Promise<NotificationTable[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .where('firm_id', '=', firmId)
    .where('kind', 'in', kinds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
