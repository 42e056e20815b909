/**
 * Kysely table types. Conventions shared by SQLite and PostgreSQL (one set of migrations):
 * ids are uuid text; instants are ISO-8601 UTC text with milliseconds (`2026-11-22T09:30:00.000Z`,
 * sortable as text); dates `YYYY-MM-DD`; wall-clock times `HH:MM:SS`; flags are integers 0/1.
 */
import type { Generated } from 'kysely';

export interface ProvinceTable {
  code: string;
  slug: string;
  name: string;
  autonomous_community: string;
  timezone: string;
}

export interface CityTable {
  slug: string;
  name: string;
  province_code: string;
}

export interface PracticeAreaTable {
  slug: string;
  name: string;
  description: string;
  parent_slug: string | null;
  position: number;
}

export interface LawyerTable {
  id: string;
  name: string;
  city_slug: string;
  timezone: string;
  consultation_fee_cents: number;
  platform_commission_percent: number;
  bio: string | null;
  verified: number;
  listed: number;
  /** Mean rating of verified-client reviews, null without reviews. */
  rating_avg: number | null;
  /** round(rating_avg * 100), 0 without reviews: a non-null sort key the indexes can use. */
  rating_key: number;
  review_count: number;
  total_bookings: number | null;
  /** Denormalised summary data (JSON), rewritten whenever the lawyer's areas/languages change. */
  practice_areas_json: string;
  languages_json: string;
  created_at: string;
  updated_at: string;
  /** Where consultation notices are emailed (0011); never part of any API answer. */
  contact_email: string | null;
  // -- the lawyers' side (0024; docs/lawyers.md). `verified` and `listed` above are materialised
  // by src/domain/lawyers/listing.ts from what follows and the verification records.
  /** `applied` | `verified` | `refused` | `suspended`. */
  status: string;
  /** Why refused or suspended (shown to the operator; the refusal is emailed). */
  status_reason: string | null;
  /** The lawyer's own account (she signs in like everyone); unique. */
  user_id: string | null;
  /** The operator's listing switch: 1 = kept out of the directory whatever else holds. */
  hidden: number;
  /** The consultation's length: 30, 45, 60 or 90. */
  consultation_minutes: number;
  /** Her own meeting link (https) when she offers video consultations. */
  video_url: string | null;
  offers_phone: number;
  /** Her office when she offers consultations in person. */
  office_address: string | null;
  /** Minimum notice before a consultation; null: the platform's MIN_LEAD_TIME_MINUTES. */
  min_notice_minutes: number | null;
  buffer_minutes: number;
  /** How many days ahead people may book. */
  horizon_days: number;
  /** When the verification in force ends (materialised with `verified`); null when not verified. */
  verified_until: string | null;
  // -- 0034-wave4-shared --
  /** How she wants to be named: 'female' (abogada), 'male' (abogado), 'neutral' or null (neutral wording). */
  form_of_address?: 'female' | 'male' | 'neutral' | null;
  /** 1: her bookings feed carries phone numbers and notes (default 0). */
  feed_private_details?: number;
}

/** One of the 83 Spanish colegios de la abogacía (0024): reference data. */
export interface BarAssociationTable {
  id: string;
  name: string;
  province_code: string;
  website_url: string | null;
}

/** An operator's verification of a lawyer's membership of a colegio (0024); it expires. */
export interface LawyerVerificationTable {
  id: string;
  lawyer_id: string;
  bar_name: string | null;
  bar_association_id: string | null;
  membership_number: string | null;
  checked_census: number;
  checked_colegio: number;
  /** `operator` or `import`. */
  source: string;
  /** The operator who verified; null from the command line or an import. */
  operator_user_id: string | null;
  note: string;
  verified_at: string;
  expires_at: string;
  reminder_sent_at: string | null;
}

export interface LawyerPracticeAreaTable {
  lawyer_id: string;
  area_slug: string;
  is_primary: number;
}

/** The languages a person reads, in order of preference (0034; DESIGN.md §13). */
export interface UserLanguageTable {
  user_id: string;
  /** ISO 639-1. */
  language: string;
  position: number;
}

export interface LawyerLanguageTable {
  lawyer_id: string;
  language: string;
}

export interface BarMembershipTable {
  lawyer_id: string;
  bar_name: string;
  /** Materialised: a current verification record for this membership (0024). */
  verified: number;
  bar_association_id: string | null;
  membership_number: string | null;
}

export interface WeeklyHoursTable {
  lawyer_id: string;
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
  start_time: string;
  end_time: string;
  slot_minutes: number;
}

/** Her choice on one date (0037): open a national or regional holiday, or close a local one. */
export interface LawyerHolidayChoiceTable {
  lawyer_id: string;
  date: string;
  choice: 'open' | 'closed';
  created_at: string;
}

export type VerificationNoticeKind = 'verified' | 'refused' | 'expires_30' | 'expires_7' | 'expired' | 'suspended';

/** One email about her verification, sent once (0037): the key is (lawyer, kind, cycle). */
export interface LawyerVerificationNoticeTable {
  lawyer_id: string;
  kind: VerificationNoticeKind;
  /** The verification's expiry it is about (reminders, expiry), or the event's time (verified, refused, suspended). */
  cycle: string;
  mail_id: string | null;
  created_at: string;
}

export interface DateExceptionTable {
  lawyer_id: string;
  date: string;
  /** Both null: closed all day. Otherwise these hours replace the weekly hours of that date. */
  start_time: string | null;
  end_time: string | null;
  slot_minutes: number | null;
}

/** A lawyer's bio in one language (0029); `lawyers.bio` stays the default the API shows. */
export interface LawyerBioTable {
  lawyer_id: string;
  /** ISO 639-1. */
  language: string;
  bio: string;
  updated_at: string;
}

/** A lawyer's photo (0029), stored in the database: JPEG, PNG or WebP, at most 2 MB. */
export interface LawyerPhotoTable {
  lawyer_id: string;
  content_type: string;
  /** SHA-256 of the bytes (hex): part of the photo's URL. */
  sha256: string;
  byte_size: number;
  data_base64: string;
  updated_at: string;
}

export interface ReviewTable {
  id: string;
  lawyer_id: string;
  rating: number;
  comment: string | null;
  created_at: string | null;
  verified_client: number;
  // -- 0033-after-booking: reviews by verified clients (DESIGN.md §11) --
  /** The held consultation it is about (unique); null on imported reviews. */
  consultation_id?: string | null;
  /** Its author's account; null on imported reviews (and after the account is deleted). */
  user_id?: string | null;
  /** Last edit by its author (editable for 30 days from created_at). */
  updated_at?: string | null;
  /** The lawyer's one public answer (third-party text). */
  answer?: string | null;
  answered_at?: string | null;
  /** Set while the operator keeps it hidden, with the reason and the operator's user id. */
  hidden_at?: string | null;
  hidden_reason?: string | null;
  hidden_by?: string | null;
}

/** A report of a review by anyone (0033); the operator resolves it. */
export interface ReviewReportTable {
  id: string;
  review_id: string;
  user_id: string | null;
  reporter_hash: string | null;
  reason: string;
  details: string | null;
  created_at: string;
  resolved_at: string | null;
}

/** One reminder (or review invitation) queued for a consultation (0033): each once per start time. */
export interface ConsultationReminderTable {
  consultation_id: string;
  kind: 'person_24h' | 'person_1h' | 'lawyer_day_before' | 'review_invitation';
  starts_at: string;
  mail_id: string | null;
  created_at: string;
}

export interface SlotHoldTable {
  lawyer_id: string;
  slot_date: string;
  start_time: string;
  end_time: string;
  /** `held` (a pending booking intent, until `expires_at`) or `booked` (for good). */
  status: string;
  booking_intent_id: string | null;
  expires_at: string | null;
  created_at: string;
  /**
   * Where the hold's cells end (0028): its end plus the buffer she had when it was made, UTC ISO
   * text. Null on rows written without cells (tests' direct inserts): its end then.
   */
  occupied_until?: string | null;
}

/**
 * One 15-minute cell of a hold or booking (0028): [start, end + buffer) of every slot_holds row,
 * keyed (lawyer_id, cell_start), so two overlapping holds can never both commit. Deleted with
 * its hold (ON DELETE CASCADE).
 */
export interface SlotCellTable {
  lawyer_id: string;
  /** The cell's first instant, ISO 8601 UTC. */
  cell_start: string;
  slot_date: string;
  start_time: string;
}

/** A lawyer's availability or booking count changed (0007-lawyer-changes). */
export interface LawyerChangeTable {
  id: Generated<number>;
  lawyer_id: string;
  changed_at: string;
}

export interface DirectoryStateTable {
  id: number;
  /** Bumped by every directory write; caches of derived directory data key on it. */
  version: number;
  updated_at: string;
}

export interface RequestLogTable {
  request_id: string;
  at: string;
  key_id: string | null;
  /** `user` or `firm` for keyed requests, null when anonymous. */
  owner_type: string | null;
  owner_id: string | null;
  test: number;
  method: string;
  /** The route pattern (`/api/v1/lawyers/:lawyerId`), or the path for unknown routes. */
  route: string;
  path: string;
  /**
   * The query string as the client sent it, without the `?`; null when there was none (0023).
   * Bounded, with anything shaped like an API key blanked (loggedQuery in request-log.ts).
   * Optional here: entries written by code that never has one (MCP calls) leave it out.
   */
  query?: string | null;
  status: number;
  duration_ms: number;
  client_ip: string;
  error_code: string | null;
}

export interface UsageDailyTable {
  key_id: string;
  day: string;
  requests: number;
  errors: number;
  rate_limited: number;
  /** Status >= 500 (0017). */
  server_errors: number;
}

/** Live errors per key, UTC day and problem code ('' when the answer had none) (0017). */
export interface UsageDailyErrorsTable {
  key_id: string;
  day: string;
  code: string;
  count: number;
}

/** Live requests per key, UTC day and route pattern ('*': no such route) (0017). */
export interface UsageDailyRoutesTable {
  key_id: string;
  day: string;
  method: string;
  route: string;
  requests: number;
  errors: number;
}

/** Live requests per key, UTC day and latency bucket (domain/access/latency.ts) (0017). */
export interface UsageDailyLatencyTable {
  key_id: string;
  day: string;
  bucket: number;
  count: number;
}

// -- access tables (0002-accounts) --

export interface UserTable {
  id: string;
  /** Stored lower-cased (a CHECK enforces it): one account per address whatever the casing. */
  email: string;
  name: string | null;
  created_at: string;
  /** `en` or `es`: the site language the person last used; emails to them use it (0009). */
  locale: string | null;
  /** When they first opened a request log showing a request by one of their keys (0023; the getting-started checklist). */
  request_log_seen_at?: string | null;
}

export interface FirmTable {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

export interface FirmMembershipTable {
  firm_id: string;
  user_id: string;
  /** `owner`, `admin` or `member`. */
  role: string;
  /** JSON array of granted permissions (`["keys:manage"]`); used for `member`s only. */
  permissions: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, safe to display. */
  prefix: string;
  name: string | null;
  /** `live` or `test`. */
  mode: string;
  tier: string;
  /** JSON array of scopes. */
  scopes: string;
  /** Exactly one of owner_user_id / owner_firm_id is set (CHECK). */
  owner_user_id: string | null;
  owner_firm_id: string | null;
  created_by_user_id: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** `firm` or `operator`; null when not suspended. */
  suspended_by: string | null;
  suspension_reason: string | null;
  suspended_at: string | null;
  /** JSON array of normalised addresses/CIDRs; null means any address. */
  allowed_ips: string | null;
  created_at: string;
  // -- 0036-publishable-keys --
  /** `secret` (svc_…) or `publishable` (pk_live_… / pk_test_…: the booking widget's). */
  kind?: string;
  /** Publishable keys: JSON array of the web origins it works from; null for secret keys. */
  allowed_origins?: string | null;
  /** Publishable keys only: the key itself (public by design); null for secret keys. */
  public_token?: string | null;
}

export interface NotificationTable {
  id: string;
  user_id: string;
  firm_id: string | null;
  kind: string;
  subject: string;
  body: string;
  /** JSON object with the machine-readable details. */
  data: string;
  created_at: string;
  /** Null until the email was accepted by the mail server (a failed send leaves it null). */
  emailed_at: string | null;
}

export interface BookingIntentTable {
  id: string;
  lawyer_id: string;
  slot_date: string;
  start_time: string;
  end_time: string;
  status: string;
  key_id: string | null;
  owner_type: string | null;
  owner_id: string | null;
  source: string | null;
  agent_name: string | null;
  confirmation_token: string;
  client_ip: string;
  expires_at: string;
  confirmed_at: string | null;
  confirmed_by_user_id: string | null;
  expired_at: string | null;
  created_at: string;
  /** Holds made over MCP (0018): the person the agent acted for; only they may confirm it. */
  held_for_user_id?: string | null;
  /** Holds made over MCP (0018): the OAuth client that made it. */
  oauth_client_id?: string | null;
  // -- 0033-after-booking: chosen on the hold page, copied to the consultation on confirmation --
  format?: ConsultationFormat | null;
  note?: string | null;
  phone_e164?: string | null;
  /** The visitor's own IANA zone (shown beside the lawyer's), when known. */
  person_timezone?: string | null;
  // -- 0034-wave4-shared (copied to the consultation on confirmation) --
  /** The name the lawyer sees (asked once; never the email address). */
  person_name?: string | null;
  /** The languages the person reads when they booked: JSON array of ISO 639-1 codes. */
  person_languages?: string | null;
  /** How the person answered a language mismatch; null when they share a language with the lawyer. */
  language_ack?: LanguageAck | null;
  /** The note's detected language (ISO 639-1), a label only; null when it cannot be told. */
  note_language?: string | null;
}

/** A person's answer when the lawyer speaks none of their languages (0034). */
export type LanguageAck = 'interpreter' | 'spanish';

/** How a consultation is held (0033). */
export type ConsultationFormat = 'video' | 'phone' | 'in_person';

export interface IdempotencyKeyTable {
  scope: string;
  key: string;
  fingerprint: string;
  state: string;
  locked_until: string | null;
  response_status: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string;
}

export interface OutboxEventTable {
  id: string;
  type: string;
  booking_intent_id: string;
  key_id: string;
  owner_type: string;
  owner_id: string;
  data: string;
  created_at: string;
  published_at: string | null;
}

export interface ConsultationTable {
  id: string;
  booking_intent_id: string;
  user_id: string;
  lawyer_id: string;
  slot_date: string;
  start_time: string;
  end_time: string;
  created_at: string;
  // -- 0027-wave3-shared --
  status: Generated<ConsultationStatus>;
  status_reason: string | null;
  status_changed_at: string | null;
  ics_sequence: Generated<number>;
  // -- 0033-after-booking --
  format?: ConsultationFormat | null;
  /** Third-party text for the lawyer (≤ 1,000 characters). */
  note?: string | null;
  phone_e164?: string | null;
  person_timezone?: string | null;
  /** The language its emails are written in (the site's at booking, until the account has one). */
  locale?: string | null;
  moved_from_date?: string | null;
  moved_from_start_time?: string | null;
  // -- 0034-wave4-shared --
  person_name?: string | null;
  person_languages?: string | null;
  language_ack?: LanguageAck | null;
  note_language?: string | null;
  /** How many times the person moved it (capped: docs/booking-intents.md). */
  move_count?: number;
}

/** The consultation's own state (DESIGN.md §11); the booking intent stays `confirmed` throughout. */
export type ConsultationStatus = 'confirmed' | 'moved' | 'cancelled_by_person' | 'cancelled_by_lawyer' | 'held' | 'no_show';

/** At most one per consultation (0027): a refund is never sent twice. */
export interface ConsultationRefundTable {
  id: string;
  consultation_id: string;
  payment_attempt_id: string;
  provider: string;
  amount_cents: number;
  currency: string;
  initiated_by: 'lawyer' | 'person' | 'operator';
  status: 'pending' | 'succeeded' | 'failed';
  provider_ref: string | null;
  failure_code: string | null;
  created_at: string;
  updated_at: string;
}

/** Her bookings feed (0030): the hash of the secret token of a lawyer's subscription address. */
export interface LawyerBookingFeedTable {
  lawyer_id: string;
  token_hash: string;
  created_at: string;
  last_fetched_at: string | null;
}

/** Busy times from a lawyer's own calendar feed (0027), [starts_at, ends_at) in UTC ISO text. */
export interface LawyerBusyIntervalTable {
  lawyer_id: string;
  source: string;
  starts_at: string;
  ends_at: string;
}

/** A lawyer's own calendar feed (0031; docs/lawyers.md#busy-times-from-her-own-calendar): one per lawyer. */
export interface LawyerCalendarFeedTable {
  lawyer_id: string;
  /** The secret iCalendar address (https). Never shown back in full, never logged. */
  url: string;
  /** Host and last characters, for the portal. */
  url_hint: string;
  created_at: string;
  updated_at: string;
  /** When the jobs runner reads it next; claimed by a conditional update of this column. */
  next_due_at: string;
  manual_refresh_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  /** When the intervals were last computed from a full body. */
  parsed_at: string | null;
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_at: string | null;
  etag: string | null;
  last_modified: string | null;
  busy_count: Generated<number>;
}

// -- webhooks (0005-webhooks) --

export interface WebhookEndpointTable {
  id: string;
  /** `user` or `firm`. */
  owner_type: string;
  owner_id: string;
  url: string;
  /** JSON array of event types; null means every event type. */
  event_types: string | null;
  /** `whsec_` + base64 of 32 random bytes. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** Null while enabled. */
  disabled_at: string | null;
  /** `manual`, `failures` (consecutive failed attempts) or `gone` (the endpoint answered 410). */
  disabled_cause: string | null;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookMessageTable {
  /** `msg_…`: the webhook-id header, unchanged across retries. */
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  /** `pending`, `delivered` or `dead`. */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  claim_token: string | null;
  created_at: string;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

export interface WebhookAttemptTable {
  id: string;
  message_id: string;
  endpoint_id: string;
  attempt: number;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  success: number;
  error: string | null;
  response_body: string | null;
}

// -- sign-in and sessions (0009-sessions) --

export interface SignInChallengeTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** scrypt of the 6-digit code (salted with the id): slow to brute-force from a stolen row. */
  code_hash: string;
  /** SHA-256 of the link token (32 random bytes). */
  link_hash: string;
  /** SHA-256 of the secret in the asking browser's cookie: the link completes only there. */
  browser_hash: string;
  /** A same-origin path to go to afterwards. */
  return_to: string | null;
  locale: string;
  attempts: number;
  client_ip: string;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

export interface SessionTable {
  id: string;
  /** SHA-256 of the cookie's token. */
  token_hash: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end. */
  expires_at: string;
  revoked_at: string | null;
  client_ip: string | null;
  user_agent: string | null;
  /** When this session last proved a passkey (0012-operators); sensitive operator actions need it recent. */
  step_up_at: string | null;
}

// -- payments (0010-payments) --

export interface PaymentAttemptTable {
  id: string;
  booking_intent_id: string;
  /** The signed-in person paying; they become the consultation's owner. */
  user_id: string;
  /** `demo` or `stripe`. */
  provider: string;
  /** `open` → `authorized` → `captured` | `voided`; or `failed` | `expired` | `canceled`. */
  status: string;
  amount_cents: number;
  /** ISO 4217, upper case (`EUR`). */
  currency: string;
  /** The hosted checkout (Stripe Checkout Session id); null for the demo provider. */
  checkout_ref: string | null;
  checkout_url: string | null;
  /** The authorization (Stripe PaymentIntent id, or the demo's authorization id). */
  payment_ref: string | null;
  /** Why the card was declined (`card_declined`, `insufficient_funds`, …) or the attempt was given up. */
  failure_code: string | null;
  created_at: string;
  updated_at: string;
  authorized_at: string | null;
  captured_at: string | null;
  voided_at: string | null;
  // -- 0032-earnings-connect --
  /** The lawyer's connected account a destination charge went to; null for a platform charge. */
  destination_account?: string | null;
  /** The platform's share (quote()) fixed when the attempt began; null on attempts made before 0032. */
  platform_fee_cents?: number | null;
}

export interface PaymentEventTable {
  provider: string;
  event_id: string;
  type: string;
  received_at: string;
}

// -- mail outbox (0011-mail) --

export interface MailOutboxTable {
  id: string;
  /** Stable machine name: `sign_in`, `consultation_receipt`, `consultation_lawyer_notice`… */
  kind: string;
  recipient: string;
  subject: string;
  /** Empty once erased (a sensitive mail after delivery). */
  text: string;
  html: string | null;
  /** JSON array of `MailAttachment`s; `[]` once erased. */
  attachments: string;
  sensitive: number;
  /** `queued`, `sent` (an SMTP server accepted it), `local` (no SMTP: kept here) or `failed`. */
  status: string;
  /** Send attempts made (through SMTP). */
  attempts: number;
  /** When a queued mail is due; null once it is no longer queued. */
  next_attempt_at: string | null;
  locked_until: string | null;
  claim_token: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
  erased_at: string | null;
}

// -- operators (0012-operators) --

export interface OperatorTable {
  user_id: string;
  added_at: string;
}

// -- dashboard tables: each area adds its own below, in migration order --

// -- firm invitations (0014-firm-invitations) --

export interface FirmInvitationTable {
  id: string;
  firm_id: string;
  /** The invited address, lower-cased: only a person signed in with it may accept. */
  email: string;
  /** `owner`, `admin` or `member`: the role on joining. */
  role: string;
  /** JSON array of permissions granted on joining (members only). */
  permissions: string;
  /** SHA-256 (hex) of the link's token; the token itself is only in the email. */
  token_hash: string;
  /** Null when the operator invited. */
  invited_by_user_id: string | null;
  /** `en` or `es`: the language of the email. */
  locale: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by_user_id: string | null;
  revoked_at: string | null;
}

// -- operator audit log (0015-operator-audit) --

export interface OperatorAuditTable {
  id: Generated<number>;
  at: string;
  /** `user` (a person in the console) or `cli` (the command line). */
  actor_type: string;
  actor_user_id: string | null;
  /** The operator's email when they acted (copied: the log outlives accounts). */
  actor_email: string | null;
  action: string;
  /** `key`, `lawyer` or `user`. */
  target_type: string;
  target_id: string;
  /** Readable name of the target at that time (key prefix, lawyer name, email). */
  target_label: string | null;
  /** JSON object: what changed. */
  details: string;
  /** X-Request-Id of the console request; null from the command line. */
  request_id: string | null;
}

// -- passkeys (0016-passkeys) --

export interface PasskeyUserHandleTable {
  user_id: string;
  /** The WebAuthn user handle: random bytes, base64url (never the email). */
  handle: string;
  created_at: string;
}

export interface PasskeyTable {
  id: string;
  user_id: string;
  /** The authenticator's credential id, base64url. */
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of transports. */
  transports: string;
  name: string;
  /** `singleDevice` or `multiDevice`. */
  device_type: string;
  backed_up: number;
  created_at: string;
  last_used_at: string | null;
}

export interface PasskeyChallengeTable {
  id: string;
  challenge: string;
  /** `register`, `sign_in` or `step_up`. */
  purpose: string;
  session_id: string | null;
  user_id: string | null;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

export interface DB {
  provinces: ProvinceTable;
  cities: CityTable;
  practice_areas: PracticeAreaTable;
  lawyers: LawyerTable;
  lawyer_practice_areas: LawyerPracticeAreaTable;
  lawyer_languages: LawyerLanguageTable;
  user_languages: UserLanguageTable;
  bar_memberships: BarMembershipTable;
  bar_associations: BarAssociationTable;
  lawyer_verifications: LawyerVerificationTable;
  lawyer_weekly_hours: WeeklyHoursTable;
  lawyer_date_exceptions: DateExceptionTable;
  lawyer_holiday_choices: LawyerHolidayChoiceTable;
  lawyer_verification_notices: LawyerVerificationNoticeTable;
  lawyer_bios: LawyerBioTable;
  lawyer_photos: LawyerPhotoTable;
  reviews: ReviewTable;
  review_reports: ReviewReportTable;
  consultation_reminders: ConsultationReminderTable;
  slot_holds: SlotHoldTable;
  slot_cells: SlotCellTable;
  directory_state: DirectoryStateTable;
  lawyer_changes: LawyerChangeTable;
  request_log: RequestLogTable;
  usage_daily: UsageDailyTable;
  usage_daily_errors: UsageDailyErrorsTable;
  usage_daily_routes: UsageDailyRoutesTable;
  usage_daily_latency: UsageDailyLatencyTable;
  booking_intents: BookingIntentTable;
  idempotency_keys: IdempotencyKeyTable;
  outbox_events: OutboxEventTable;
  consultations: ConsultationTable;
  consultation_refunds: ConsultationRefundTable;
  lawyer_busy_intervals: LawyerBusyIntervalTable;
  lawyer_calendar_feeds: LawyerCalendarFeedTable;
  lawyer_booking_feeds: LawyerBookingFeedTable;
  // -- access tables (0002-accounts) --
  users: UserTable;
  firms: FirmTable;
  firm_memberships: FirmMembershipTable;
  api_keys: ApiKeyTable;
  notifications: NotificationTable;
  // -- webhooks (0005-webhooks) --
  webhook_endpoints: WebhookEndpointTable;
  webhook_messages: WebhookMessageTable;
  webhook_attempts: WebhookAttemptTable;
  // -- sign-in and sessions (0009-sessions) --
  sign_in_challenges: SignInChallengeTable;
  sessions: SessionTable;
  // -- payments (0010-payments) --
  payment_attempts: PaymentAttemptTable;
  payment_events: PaymentEventTable;
  // -- mail outbox (0011-mail) --
  mail_outbox: MailOutboxTable;
  // -- operators (0012-operators) --
  operators: OperatorTable;
  // -- dashboard tables (0013 and later) --
  passkey_user_handles: PasskeyUserHandleTable;
  passkeys: PasskeyTable;
  passkey_challenges: PasskeyChallengeTable;
  firm_invitations: FirmInvitationTable;
  operator_audit: OperatorAuditTable;
  // -- OAuth authorization server (0018-oauth) --
  oauth_records: OAuthRecordTable;
  oauth_client_profiles: OAuthClientProfileTable;
  // -- the contact form (0026-contact-messages) --
  contact_messages: ContactMessageTable;
  // -- earnings, payouts and firms' lawyers (0032-earnings-connect) --
  lawyer_payout_accounts: LawyerPayoutAccountTable;
  firm_lawyers: FirmLawyerTable;
}

/** A lawyer's Stripe Connect Express account (0032) and what Stripe last said of it. */
export interface LawyerPayoutAccountTable {
  lawyer_id: string;
  /** `stripe`. */
  provider: string;
  account_id: string;
  charges_enabled: number;
  payouts_enabled: number;
  details_submitted: number;
  created_at: string;
  updated_at: string;
}

/** A firm's invitation to a lawyer and her answer (0032): nothing is shared until she accepts. */
export interface FirmLawyerTable {
  firm_id: string;
  lawyer_id: string;
  status: 'invited' | 'accepted' | 'declined' | 'ended';
  invited_by_user_id: string | null;
  invited_at: string;
  responded_at: string | null;
}

/** A message sent from the site's contact form (docs/site.md#contact). */
export interface ContactMessageTable {
  id: string;
  /** The sender's account when they were signed in. */
  user_id: string | null;
  name: string;
  /** The address to answer to (normal form). */
  email: string;
  /** `booking`, `payment`, `account`, `lawyer`, `privacy` or `other`. */
  topic: string;
  /** Third-party text: shown escaped, never as HTML. */
  message: string;
  locale: string;
  mail_id: string | null;
  created_at: string;
}

/** One stored oidc-provider object (see 0018-oauth). */
export interface OAuthRecordTable {
  model: string;
  /** The object's id, or its SHA-256 (base64url) when the id is a bearer secret. */
  id: string;
  /** The model's JSON (without the id when it is hashed). */
  payload: string;
  grant_id: string | null;
  account_id: string | null;
  client_id: string | null;
  uid: string | null;
  expires_at: string | null;
  consumed_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

/** What a person was shown about an OAuth client when consenting. */
export interface OAuthClientProfileTable {
  client_id: string;
  client_name: string;
  /** `registered` (Dynamic Client Registration) or `metadata` (Client ID Metadata Document). */
  kind: string;
  redirect_host: string;
  updated_at: string;
}
