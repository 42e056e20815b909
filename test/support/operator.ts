/**
 * Operators for console tests: a signed-in operator who has a passkey on record (as every
 * operator must), with or without a fresh step-up. The passkey is a stored credential row; the
 * ceremonies themselves are tested in test/identity/passkeys.test.ts and test/browser/passkeys.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { insertPasskey } from '../../src/db/repositories/passkey.repository.ts';
import type { TestContext } from './app.ts';
import { signedIn, type SignedIn } from './dashboard.ts';

/** Stores a passkey for the user (what registering one leaves behind). */
export async function givePasskey(database: Database, userId: string, nowIso: string): Promise<void> {
  await insertPasskey(database.db, {
    id: randomUUID(),
    user_id: userId,
    credential_id: randomBytes(32).toString('base64url'),
    public_key: randomBytes(77).toString('base64url'),
    counter: 0,
    transports: '["internal"]',
    name: 'Operator laptop',
    device_type: 'multiDevice',
    backed_up: 1,
    created_at: nowIso,
    last_used_at: null,
  });
}

/** A signed-in operator with a passkey; `steppedUp` marks the session as having just proved it. */
export async function operatorSignedIn(ctx: TestContext, email: string, options: { steppedUp?: boolean; lang?: 'en' | 'es' } = {}): Promise<SignedIn> {
  const who = await signedIn(ctx, email, { operator: true, steppedUp: options.steppedUp, lang: options.lang });
  await givePasskey(ctx.database, who.userId, ctx.clock.now().toISOString());
  return who;
}
