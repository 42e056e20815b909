/**
 * Firm helpers for dashboard tests: the invitations service over a test app (the same wiring as
 * app.ts), and the invitation link read back from the mail outbox, as the invitee would.
 */
import { FirmInvitationsService } from '../../src/domain/access/firm-invitations.service.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';

export const OPERATOR: Actor = { type: 'operator' };
const LINK = /\/firms\/invitations\/([A-Za-z0-9_-]{43})/;

/** The invitations service of a test app. */
export function invitationsOf(app: App, database: Database, clock: Clock, siteUrl: string): FirmInvitationsService {
  return new FirmInvitationsService({ database, clock, config: { siteUrl }, mail: app.services.mail, accounts: app.services.accounts });
}

/** The token of the newest invitation emailed to `email` (from the outbox). */
export async function invitationToken(app: App, email: string): Promise<string> {
  const mail = await app.services.mail.last(email.toLowerCase());
  const token = mail && mail.kind === 'firm_invitation' ? LINK.exec(mail.text)?.[1] : undefined;
  if (!token) throw new Error(`no invitation emailed to ${email}`);
  return token;
}

/** A firm's invitation rows, as they are stored (for "nothing changed" snapshots). */
export function invitationRows(database: Database, firmSlug: string) {
  return database.db
    .selectFrom('firm_invitations')
    .innerJoin('firms', 'firms.id', 'firm_invitations.firm_id')
    .selectAll('firm_invitations')
    .where('firms.slug', '=', firmSlug)
    .orderBy('firm_invitations.created_at')
    .orderBy('firm_invitations.id')
    .execute();
}
