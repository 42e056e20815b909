/** A hold as the booking path's pages show it, loaded through the PaymentsService (who may see it is its rule). */
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CheckoutDetails, PaymentsService } from '../../domain/payments/payments.service.ts';
import type { HoldSummary } from './confirm.page.tsx';

export const CONFIRM_TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

export interface HoldDeps {
  payments: PaymentsService;
  directory: DirectoryService;
}

/**
 * The checkout view of a token; `private` for a paid booking that is not the visitor's (nothing
 * of it may be shown); the 404 page for a malformed or unknown token.
 */
export async function loadHold({ payments, directory }: HoldDeps, token: string, userId: string | null): Promise<{ view: CheckoutDetails; hold: HoldSummary } | { private: { signedIn: boolean } }> {
  if (!CONFIRM_TOKEN.test(token)) throw new DomainError('not_found', 'unknown confirmation link');
  const found = await payments.checkout(token, userId);
  if (found.state === 'not_found') throw new DomainError('not_found', 'unknown confirmation link');
  if (found.state === 'owner_only') return { private: { signedIn: found.signedIn } };
  const view: CheckoutDetails = found;
  const ref = await directory.reference();
  const { intent, lawyer } = view;
  return {
    view,
    hold: {
      token,
      lawyer: { id: lawyer.id, name: lawyer.name, city: ref.cityBySlug.get(lawyer.city_slug)?.name ?? lawyer.city_slug, timezone: lawyer.timezone },
      date: intent.slot_date,
      startTime: intent.start_time,
      endTime: intent.end_time,
      startsAtIso: view.startsAt,
      expiresAtIso: intent.expires_at,
      quote: view.quote,
      secondsLeft: view.secondsLeft,
    },
  };
}

/**
 * The hold a sign-in is for, from its return path (`/confirm/{token}` or `/confirm/{token}/pay`),
 * shown on the code page while it can still be paid; null for any other path, an unknown or
 * paid booking, or one that can no longer be paid.
 */
export async function holdForReturnTo(deps: HoldDeps, returnTo: string | null): Promise<HoldSummary | null> {
  const m = returnTo ? /^\/confirm\/([A-Za-z0-9_-]{20,64})(?:\/pay)?(?:\?.*)?$/.exec(returnTo) : null;
  if (!m) return null;
  try {
    const loaded = await loadHold(deps, m[1]!, null);
    if ('private' in loaded || loaded.view.state !== 'payable') return null;
    return loaded.hold;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') return null;
    throw err;
  }
}
