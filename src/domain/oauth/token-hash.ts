import { createHash } from 'node:crypto';

/**
 * SHA-256 (base64url) of a bearer secret (an OAuth token, code or session id): how the
 * authorization server stores it and how the resource server looks it up.
 */
export function hashOAuthId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}
