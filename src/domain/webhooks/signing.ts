/**
 * Standard Webhooks signing. The signature is `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded secret; during a
 * rotation's overlap the header carries one signature per valid secret, space-separated, so a
 * receiver holding either secret accepts the message.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

// Decoding a secret is cheap, but the dispatcher signs every attempt: keep the last few keys.
const signers = new Map<string, Webhook>();

function signer(secret: string): Webhook {
  let webhook = signers.get(secret);
  if (!webhook) {
    if (signers.size >= 1000) signers.clear();
    webhook = new Webhook(secret);
    signers.set(secret, webhook);
  }
  return webhook;
}

/** The `webhook-signature` header value: one `v1,…` signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => signer(secret).sign(messageId, timestamp, body)).join(' ');
}
