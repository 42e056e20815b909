/**
 * `consulta backup FILE [--force]`: an online backup of the embedded SQLite database, taken while
 * the server runs (src/db/backup.ts). With PostgreSQL it explains the pg_dump path and exits 2.
 * Exit codes: 0 written, 1 refused or failed (nothing written to FILE), 2 usage error or PostgreSQL.
 */
import type { Config } from '../config.ts';
import { BackupRefused, backupSqlite } from '../db/backup.ts';
import { print, type Flags } from './keys.commands.ts';

const USAGE = 'usage: consulta backup FILE [--force]';

export async function runBackupCommand(ctx: { config: Config; args: string[]; flags: Flags; json: boolean }): Promise<number> {
  const { config, args, flags, json } = ctx;
  const fail = (code: string, detail: string, exit: number) => {
    if (json) print(true, { error: { code, detail } }, '');
    process.stderr.write(`consulta: ${detail}\n`);
    return exit;
  };
  const [file, ...extra] = args;
  if (!file || extra.length > 0) return fail('usage', file ? `backup takes one FILE; ${USAGE}` : `backup needs a FILE; ${USAGE}`, 2);
  try {
    const result = await backupSqlite(config.databaseUrl, file, { force: flags.force === true });
    const seconds = result.durationMs / 1000;
    print(
      json,
      { file: result.file, bytes: result.bytes, pages: result.pages, seconds: Number(seconds.toFixed(3)), integrity: 'ok' },
      `backed up the database to ${result.file}: ${(result.bytes / 1_048_576).toFixed(1)} MiB in ${seconds.toFixed(1)} s (integrity ok)`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BackupRefused) return fail(err.reason, err.message, err.reason === 'postgres' ? 2 : 1);
    return fail('backup_failed', `backup failed: ${(err as Error).message}`, 1);
  }
}
