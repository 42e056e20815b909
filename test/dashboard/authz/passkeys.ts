/**
 * Passkey routes that name an object: the removal confirmation and the removal itself. The
 * victim's passkey is a stored credential row (the ceremonies are tested in
 * test/identity/passkeys.test.ts); the attacker must get the 404 page and the row must stay.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { insertPasskey } from '../../../src/db/repositories/passkey.repository.ts';
import type { TestContext } from '../../support/app.ts';
import type { ForeignObjectCase, SignedIn } from '../../support/dashboard.ts';

async function victimPasskey(ctx: TestContext, victim: SignedIn) {
  const id = randomUUID();
  await insertPasskey(ctx.database.db, {
    id,
    user_id: victim.userId,
    credential_id: randomBytes(32).toString('base64url'),
    public_key: randomBytes(77).toString('base64url'),
    counter: 3,
    transports: '["internal"]',
    name: 'Victim laptop',
    device_type: 'singleDevice',
    backed_up: 0,
    created_at: ctx.clock.now().toISOString(),
    last_used_at: null,
  });
  const snapshot = () => ctx.database.db.selectFrom('passkeys').selectAll().where('user_id', '=', victim.userId).execute();
  return { id, snapshot };
}

export const cases: ForeignObjectCase[] = [
  {
    route: '/account/passkeys/:id/remove',
    method: 'GET',
    async setup(ctx, victim) {
      const { id, snapshot } = await victimPasskey(ctx, victim);
      return { url: `/account/passkeys/${id}/remove`, snapshot };
    },
  },
  {
    route: '/account/passkeys/:id/remove',
    method: 'POST',
    async setup(ctx, victim) {
      const { id, snapshot } = await victimPasskey(ctx, victim);
      return { url: `/account/passkeys/${id}/remove`, form: {}, snapshot };
    },
  },
];
