/** Vocabulary of webhooks: event types, endpoints and delivery attempts as the service shows them. */

/** Event types an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['booking_intent.confirmed', 'booking_intent.expired'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type of the message `webhooks test` sends; never subject to an endpoint's filter. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Why an endpoint is disabled: by someone, after too many consecutive failures, or after a 410. */
export type DisabledCause = 'manual' | 'failures' | 'gone';

export type WebhookOwner = { type: 'user'; id: string; email: string } | { type: 'firm'; id: string; slug: string };

/** An endpoint as management calls return it (never its secrets). */
export interface WebhookEndpoint {
  id: string;
  owner: WebhookOwner;
  url: string;
  /** Subscribed event types; null means all of them. */
  eventTypes: WebhookEventType[] | null;
  enabled: boolean;
  disabled: { at: string; cause: DisabledCause; reason: string } | null;
  consecutiveFailures: number;
  /** While a rotation's overlap lasts: until when the previous secret still signs. */
  previousSecretExpiresAt: string | null;
  /** Messages not yet delivered nor dead (waiting for a retry, or for re-enabling). */
  pendingMessages: number;
  createdAt: string;
  updatedAt: string;
}

/** One delivery attempt, as `webhooks deliveries` lists it. */
export interface WebhookAttempt {
  /** The message id: the `webhook-id` header. */
  messageId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  responseBody: string | null;
  /** Where the message stands now: pending, delivered or dead. */
  messageStatus: string;
  nextAttemptAt: string | null;
}

/** One message of an endpoint (one event for this endpoint), with its attempts oldest first. */
export interface WebhookMessage {
  /** The `webhook-id` header. */
  id: string;
  eventId: string;
  eventType: string;
  /** pending, delivered or dead. */
  status: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due; null when delivered, dead, or waiting for the endpoint to be enabled. */
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  history: WebhookAttempt[];
}

/** A page of an endpoint's attempts, newest first; `next` continues with older ones. */
export interface WebhookAttemptPage {
  attempts: WebhookAttempt[];
  /** An opaque cursor for the following (older) page; null on the last page. */
  next: string | null;
}
