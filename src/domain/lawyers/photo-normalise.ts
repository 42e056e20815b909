/**
 * Photos stored before every upload was re-encoded (photo.ts; issue 25 item 3) were kept as she
 * sent them, and her public profile still served them so: a PNG declaring 60,000 × 60,000 pixels
 * went on to every visitor's browser. This pass brings each stored photo to what an upload gives
 * today — a PHOTO_SIDE square JPEG without metadata — or removes it when it cannot be read or is
 * over PHOTO_MAX_PIXELS (her profile then shows her initials, as for a lawyer without a photo).
 *
 * Idempotent without a marker: a photo is "done" when its type is image/jpeg and its header (read
 * by sharp without decoding) says PHOTO_SIDE × PHOTO_SIDE JPEG with no EXIF, ICC, XMP, IPTC or
 * comments — what reencodePhoto writes. Safe in several processes (every server runs it at start):
 * a photo is replaced or removed only while it still has the hash that was read (UPDATE/DELETE …
 * WHERE sha256 = the one read), so two processes that re-encode the same photo write it once, and
 * a photo she uploads meanwhile is never overwritten. One photo at a time, sharp's work on libuv's
 * thread pool: a large backlog does not hold the serving thread.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { afterLawyerWrite } from './portal.service.ts';
import { PHOTO_SIDE, PhotoRefusedError, reencodePhoto } from './photo.ts';

export type PhotoOutcome =
  | { lawyerId: string; action: 'reencoded'; from: string; bytesBefore: number; bytesAfter: number }
  | { lawyerId: string; action: 'removed'; reason: string }
  /** Changed or removed by someone else (her upload, another process) between our read and our write. */
  | { lawyerId: string; action: 'skipped' };

export interface PhotoNormaliseReport {
  checked: number;
  /** Already a normalised JPEG: untouched. */
  unchanged: number;
  reencoded: number;
  removed: number;
  skipped: number;
  outcomes: PhotoOutcome[];
}

/** True when these bytes are what reencodePhoto writes; reads the header only. */
export async function isNormalisedPhoto(contentType: string, bytes: Uint8Array): Promise<boolean> {
  if (contentType !== 'image/jpeg') return false;
  try {
    const m = await sharp(bytes, { limitInputPixels: false }).metadata();
    return m.format === 'jpeg' && m.width === PHOTO_SIDE && m.height === PHOTO_SIDE && !m.exif && !m.icc && !m.xmp && !m.iptc && !(m.comments && m.comments.length > 0);
  } catch {
    return false;
  }
}

/** What the header says, for the operator's line ("png 60000 × 60000"); never decodes. */
async function describe(bytes: Uint8Array): Promise<string> {
  try {
    const m = await sharp(bytes, { limitInputPixels: false }).metadata();
    return `${m.format ?? 'unknown'} ${m.width ?? '?'} × ${m.height ?? '?'}`;
  } catch {
    return 'unreadable';
  }
}

export async function normaliseStoredPhotos(deps: {
  database: Database;
  clock: Clock;
  /** A running server's directory cache (its other processes see the bumped directory version). */
  onChange?: (lawyerId: string) => void;
  /** Each photo re-encoded or removed, as it happens (a log line, the CLI's output). */
  onOutcome?: (outcome: PhotoOutcome) => void;
  /** Checked before each photo: a server shutting down stops between two photos. */
  stopped?: () => boolean;
}): Promise<PhotoNormaliseReport> {
  const db = deps.database.db;
  const report: PhotoNormaliseReport = { checked: 0, unchanged: 0, reencoded: 0, removed: 0, skipped: 0, outcomes: [] };
  let after = '';
  while (!deps.stopped?.()) {
    // One row at a time, by lawyer id: at most one photo's bytes held, nothing skipped or repeated.
    const row = await db.selectFrom('lawyer_photos').select(['lawyer_id', 'content_type', 'sha256', 'data_base64']).where('lawyer_id', '>', after).orderBy('lawyer_id').limit(1).executeTakeFirst();
    if (!row) break;
    after = row.lawyer_id;
    report.checked++;
    const bytes = Buffer.from(row.data_base64, 'base64');
    if (await isNormalisedPhoto(row.content_type, bytes)) {
      report.unchanged++;
      continue;
    }
    let outcome: PhotoOutcome;
    let photo: Awaited<ReturnType<typeof reencodePhoto>> | null = null;
    let reason = '';
    try {
      photo = await reencodePhoto(bytes);
    } catch (err) {
      if (!(err instanceof PhotoRefusedError)) throw err;
      reason = err.message;
    }
    const nowIso = deps.clock.now().toISOString();
    if (photo) {
      const out = photo;
      const from = `${row.content_type}, ${await describe(bytes)}`;
      const sha256 = createHash('sha256').update(photo.bytes).digest('hex');
      const written = await db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('lawyer_photos')
          .set({ content_type: out.contentType, sha256, byte_size: out.bytes.length, data_base64: out.bytes.toString('base64'), updated_at: nowIso })
          .where('lawyer_id', '=', row.lawyer_id)
          .where('sha256', '=', row.sha256)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
        await afterLawyerWrite(tx, row.lawyer_id, nowIso, true);
        return true;
      });
      outcome = written ? { lawyerId: row.lawyer_id, action: 'reencoded', from, bytesBefore: bytes.length, bytesAfter: photo.bytes.length } : { lawyerId: row.lawyer_id, action: 'skipped' };
    } else {
      const removed = await db.transaction().execute(async (tx) => {
        const r = await tx.deleteFrom('lawyer_photos').where('lawyer_id', '=', row.lawyer_id).where('sha256', '=', row.sha256).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await afterLawyerWrite(tx, row.lawyer_id, nowIso, true);
        return true;
      });
      outcome = removed ? { lawyerId: row.lawyer_id, action: 'removed', reason } : { lawyerId: row.lawyer_id, action: 'skipped' };
    }
    report[outcome.action]++;
    report.outcomes.push(outcome);
    if (outcome.action !== 'skipped') deps.onChange?.(row.lawyer_id);
    deps.onOutcome?.(outcome);
  }
  return report;
}
