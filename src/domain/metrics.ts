/**
 * What the domain services report to monitoring: a small interface injected as a dependency, so
 * the rules that decide an outcome also count it (routes and tools stay thin) and the domain
 * never imports a metrics library. src/metrics/ implements it with prom-client; `noMetrics`
 * (the default) discards everything.
 *
 * Every label value is drawn from a closed set (sources, outcomes, tool names, error codes, limit
 * kinds), never from user input, so the number of series stays bounded.
 */

/** Where a hold came from: the intent's `source`, or `unspecified` when the caller sent none. */
export type HoldSource = 'api' | 'widget' | 'ai_agent' | 'unspecified';

/** What happened to money, as the payment rules decided it. */
export type PaymentOutcome = 'authorized' | 'declined' | 'captured' | 'voided' | 'capture_failed' | 'void_failed' | 'provider_error';

/** One webhook attempt: delivered (2xx), failed (a retry is scheduled), dead (the last attempt failed). */
export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'dead';

/** Which rate limit refused a request (derived from the limiter bucket, see src/metrics/). */
export type RateLimitKind =
  | 'api_key'
  | 'diagnostic'
  | 'anonymous_availability'
  | 'anonymous_initiate'
  | 'anonymous_default'
  | 'failed_auth'
  | 'mcp_tool_call'
  | 'mcp_hold'
  | 'oauth_registration'
  | 'sign_in'
  | 'passkey'
  | 'pending_intents_per_key'
  | 'pending_holds_per_person'
  | 'other';

export interface DomainMetrics {
  /** Holds committed (test-key initiations hold nothing and are not counted). */
  holdsCreated(source: string | null, n?: number): void;
  holdsConfirmed(source: string | null, n?: number): void;
  /** Holds made durably expired (the sweep, or a confirmation that found the hold lapsed). */
  holdsExpired(source: string | null, n?: number): void;
  paymentOutcome(provider: string, outcome: PaymentOutcome): void;
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
  /** An endpoint disabled by the dispatcher (410, or too many consecutive failures). */
  webhookEndpointDisabled(cause: string): void;
  /** A finished MCP tool call: `ok`, or the stable error code of its isError result. */
  toolCall(tool: string, outcome: string): void;
  rateLimitRefused(kind: RateLimitKind): void;
}

const ignore = (): void => {};

/** Metrics off: every report is dropped. */
export const noMetrics: DomainMetrics = Object.freeze({
  holdsCreated: ignore,
  holdsConfirmed: ignore,
  holdsExpired: ignore,
  paymentOutcome: ignore,
  webhookAttempt: ignore,
  webhookEndpointDisabled: ignore,
  toolCall: ignore,
  rateLimitRefused: ignore,
});

/** The label value of an intent's source (a closed set: anything unknown reads as unspecified). */
export function holdSource(source: string | null | undefined): HoldSource {
  return source === 'api' || source === 'widget' || source === 'ai_agent' ? source : 'unspecified';
}
