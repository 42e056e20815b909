/** The contact form's messages (0026-contact-messages). */
import type { ContactMessageTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function insertContactMessage(db: Executor, row: ContactMessageTable): Promise<void> {
  await db.insertInto('contact_messages').values(row).execute();
}

export async function setContactMessageMail(db: Executor, id: string, mailId: string): Promise<void> {
  await db.updateTable('contact_messages').set({ mail_id: mailId }).where('id', '=', id).execute();
}

export async function findContactMessage(db: Executor, id: string): Promise<ContactMessageTable | undefined> {
  return db.selectFrom('contact_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Deletes the messages sent from this account, or with this address (signed out). */
export async function deleteContactMessagesOf(db: Executor, userId: string, email: string): Promise<number> {
  const result = await db
    .deleteFrom('contact_messages')
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('email', '=', email)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

/** Deletes up to `limit` messages sent before `beforeIso`, oldest first (the retention purge). */
export async function deleteContactMessagesBefore(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('contact_messages').select('id').where('created_at', '<', beforeIso).orderBy('created_at').limit(limit);
  const result = await db.deleteFrom('contact_messages').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}
