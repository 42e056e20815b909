/**
 * What the booking widget's frame reads besides the directory (docs/widget.md): where a hold it
 * made stands (the frame polls it while the person confirms and pays at top level, since it has
 * no cookies and no key may read intents), and which lawyers a firm's widget lists.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findIntentByToken } from '../../db/repositories/booking.repository.ts';
import { listFirmLawyers } from '../../db/repositories/firm-lawyers.repository.ts';

export interface WidgetHold {
  id: string;
  lawyerId: string;
  date: string;
  startTime: string;
  endTime: string;
  /** Exact on read: a pending hold past its expiry reads `expired`. */
  status: 'pending' | 'confirmed' | 'expired';
  expiresAt: string;
}

export class WidgetService {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /**
   * A hold made in a widget frame, by its confirmation token (the capability the frame already
   * holds; the id alone reads nothing). Holds made elsewhere — the site's own pages, the API with
   * a secret key, an AI app — are not the widget's to read: null, as for an unknown token.
   */
  async hold(token: string): Promise<WidgetHold | null> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
    const row = await findIntentByToken(this.deps.database.db, token);
    if (!row || row.source !== 'widget' || row.key_id === null) return null;
    const now = this.deps.clock.now().toISOString();
    const status = row.status === 'confirmed' ? 'confirmed' : row.status === 'pending' && row.expires_at > now ? 'pending' : 'expired';
    return { id: row.id, lawyerId: row.lawyer_id, date: row.slot_date, startTime: row.start_time, endTime: row.end_time, status, expiresAt: row.expires_at };
  }

  /** The lawyers who accepted to appear under this firm (docs/keys-and-firms.md), by name; listing rules are the directory's. */
  async firmLawyerIds(firmId: string): Promise<string[]> {
    return (await listFirmLawyers(this.deps.database.db, firmId)).filter((r) => r.status === 'accepted').map((r) => r.lawyer_id);
  }
}
