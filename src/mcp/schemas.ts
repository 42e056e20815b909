/**
 * The MCP tools' input and output schemas: the REST contract's TypeBox schemas (src/contract)
 * wherever a tool mirrors an endpoint, and a few compositions of them, exposed to the SDK as
 * Standard Schemas validated by the same Ajv setup as the API (formats included, no type
 * coercion: tool arguments are JSON).
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { Type, type Static, type TSchema } from 'typebox';
import { BookingIntentSchema, InitiateBodySchema, InitiateResponseSchema } from '../contract/booking.ts';
import { DateOnly, DateTime, Uuid, WallTime } from '../contract/common.ts';
import { AvailabilityQuerySchema, AvailabilityResponseSchema, LawyerProfileSchema, SearchResponseSchema, ConsultationFormatsSchema, ConsultationMinutesSchema, LawyerSummarySchema, SearchQuerySchema, SlotSchema } from '../contract/directory.ts';
import { createAjv, toFieldErrors } from '../domain/validation.ts';

const ajv = createAjv({ strict: false, coerceTypes: false });

/**
 * JSON Schema of a TypeBox schema, as plain data (TypeBox's own symbols dropped), every union of
 * constants written as an `enum` (TypeBox writes `anyOf` of `const`s): a client, and the model
 * behind it, reads the allowed values as one list, and a wrong value is refused naming them.
 */
export function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  return withEnums(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
}

const isConstant = (s: unknown): s is { type?: string; const: unknown } =>
  s !== null && typeof s === 'object' && 'const' in s && Object.keys(s).every((k) => k === 'const' || k === 'type');

/** Our own schemas only (a few levels deep), so recursion is safe here. */
function withEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withEnums);
  if (node === null || typeof node !== 'object') return node;
  const { anyOf, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) out[key] = withEnums(value);
  if (Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every(isConstant)) {
    const types = new Set(anyOf.map((c) => c.type));
    const [type] = types;
    return { ...(types.size === 1 && type !== undefined && { type }), enum: anyOf.map((c) => c.const), ...out };
  }
  if (anyOf !== undefined) out.anyOf = withEnums(anyOf);
  return out;
}

/** Built once per schema and mode: compiling a validator costs about 1 ms, and a server is built per request. */
const standardCache = { input: new WeakMap<TSchema, StandardSchemaWithJSON<unknown, unknown>>(), output: new WeakMap<TSchema, StandardSchemaWithJSON<unknown, unknown>>() };

/**
 * A Standard Schema over a TypeBox schema. Inputs are validated (defaults filled in); outputs
 * are our own services' answers, advertised but not re-validated on every call (the REST routes
 * serialise the same objects with the same schemas; the tests validate them). One per schema
 * and mode, shared by every request's server.
 */
export function standard<T>(schema: TSchema, mode: 'input' | 'output'): StandardSchemaWithJSON<T, T> {
  let built = standardCache[mode].get(schema);
  if (!built) {
    built = buildStandard<unknown>(schema, mode);
    standardCache[mode].set(schema, built);
  }
  return built as StandardSchemaWithJSON<T, T>;
}

function buildStandard<T>(schema: TSchema, mode: 'input' | 'output'): StandardSchemaWithJSON<T, T> {
  const json = jsonSchemaOf(schema);
  const validate = mode === 'input' ? ajv.compile(json) : null;
  return {
    '~standard': {
      version: 1,
      vendor: 'consulta',
      validate: (value: unknown) => {
        if (!validate) return { value: value as T };
        const copy = structuredClone(value ?? {}) as T;
        if (validate(copy)) return { value: copy };
        // Worded as the API words field errors ("/sort must be one of: rating, price_asc, …").
        return {
          issues: toFieldErrors(validate.errors ?? [], '').map((e) => ({
            message: `${e.pointer || '(arguments)'} ${e.detail}`,
            path: e.pointer.split('/').filter(Boolean),
          })),
        };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

const LawyerId = Type.String({ format: 'uuid', description: 'A lawyer id from search_lawyers or find_earliest_slots' });

// Answers are sized for an agent's context: every tool's default answer stays under about 8 KB
// (docs/mcp.md#answer-sizes; test/mcp/answer-sizes.test.ts), so defaults here are smaller than
// the API's where a page of the API's size would not.

/** The search filters pointing to the tools that list valid values (the API's point to its endpoints). */
const City = Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'City slug or name (case- and accent-insensitive): any Spanish city; list_cities lists those with lawyers' }));
const PracticeArea = Type.Optional(
  Type.String({ minLength: 1, maxLength: 100, description: 'Practice-area slug from list_practice_areas or suggest_practice_areas; a parent area includes its sub-areas' }),
);

/** The person's languages, as search_lawyers takes them (additive; docs/mcp.md#languages). */
const PersonLanguagesInput = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 200,
    description: "The languages the person reads, comma-separated, most preferred first (ISO 639-1 codes or names: 'ar,fr'). Default: those kept on the person's account (Account → Your languages). The answer then says languages_in_common",
  }),
);
const LanguagesInCommon = Type.Optional(
  Type.Array(Type.String(), {
    description: "The person's languages (in their order) that this lawyer speaks. Empty: she speaks none of them — tell the person before they pay, and offer lawyers who do (search_lawyers with languages and include_remote: true); the site asks them to confirm (an interpreter, or their Spanish)",
  }),
);

/** search_lawyers: the REST query, with page optional and a smaller page (default 5). */
export const SearchInput = Type.Object(
  {
    ...SearchQuerySchema.properties,
    city: City,
    practice_area: PracticeArea,
    page: Type.Optional(SearchQuerySchema.properties.page),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 5, description: 'Lawyers per page, 1 to 25 (default 5)' })),
  },
  { additionalProperties: false },
);

export const LawyerIdInput = Type.Object({ lawyer_id: LawyerId }, { additionalProperties: false });

export const ReviewsInput = Type.Object(
  { lawyer_id: LawyerId, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 5, description: 'How many reviews, 1 to 25 (default 5)' })) },
  { additionalProperties: false },
);

export const AvailabilityInput = Type.Object(
  {
    lawyer_id: LawyerId,
    ...AvailabilityQuerySchema.properties,
    include_unavailable: Type.Optional(Type.Boolean({ default: false, description: 'Also list times that cannot be held (taken, or too soon); default false: free times only' })),
    max_slots: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 30, description: 'At most this many times, soonest first, 1 to 200 (default 30); omitted_slots says how many more the range has' })),
    languages: PersonLanguagesInput,
  },
  { additionalProperties: false },
);

/** get_lawyer_availability: the API's answer, its slots filtered and capped, saying how many were left out. */
/** What the person pays and how it splits (issue 20, additive): the same quote() as the site and the emails. */
export const PriceBreakdownSchema = Type.Object(
  {
    total_cents: Type.Integer({ description: 'What the person pays: the consultation fee, nothing added' }),
    lawyer_cents: Type.Integer({ description: "The lawyer's part" }),
    platform_cents: Type.Integer({ description: "Consulta's share, taken from the fee" }),
    platform_commission_percent: Type.Integer(),
    currency: Type.Literal('EUR'),
  },
  { title: 'PriceBreakdown' },
);

export const PolicyTextSchema = Type.String({ description: 'The cancellation and move policy, stated before paying (the same on the site and in the receipt)' });

/** get_lawyer_profile: the API's profile and, additive (issue 20), the price breakdown and the policy. */
export const ProfileOutput = Type.Object({ ...LawyerProfileSchema.properties, price_breakdown: PriceBreakdownSchema, cancellation_policy: PolicyTextSchema });

/** search_lawyers: the API's answer and, additive (issue 20), the policy (the same for every lawyer, said once). */
export const SearchOutput = Type.Object({ ...SearchResponseSchema.properties, cancellation_policy: PolicyTextSchema });

export const AvailabilityOutput = Type.Object({
  ...AvailabilityResponseSchema.properties,
  price_breakdown: PriceBreakdownSchema,
  cancellation_policy: PolicyTextSchema,
  omitted_slots: Type.Integer({ description: 'Times in the range left out by max_slots: ask again with a later start_date, or a higher max_slots' }),
  languages_in_common: LanguagesInCommon,
});

export const CitiesInput = Type.Object(
  {
    include_empty: Type.Optional(Type.Boolean({ default: false, description: 'Also list cities with no listed lawyer (default false)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'At most this many cities, most lawyers first, 1 to 500 (default 50)' })),
  },
  { additionalProperties: false },
);

export const CitiesOutput = Type.Object({
  cities: Type.Array(
    Type.Object({
      slug: Type.String({ description: 'Value for city in search_lawyers (the name works too)' }),
      name: Type.String(),
      province: Type.String(),
      lawyer_count: Type.Integer({ description: 'Verified, listed lawyers in the city' }),
    }),
  ),
  total: Type.Integer({ description: 'Cities matching (with lawyers, or all with include_empty), before limit' }),
  has_more: Type.Boolean({ description: 'More cities than listed: raise limit' }),
});

export const PracticeAreasInput = Type.Object(
  { descriptions: Type.Optional(Type.Boolean({ default: false, description: 'Include each area’s one-sentence description (default false: slugs and names)' })) },
  { additionalProperties: false },
);

const PracticeAreaOut = { slug: Type.String({ description: 'Value for practice_area in search_lawyers' }), name: Type.String(), description: Type.Optional(Type.String()) };
export const PracticeAreasOutput = Type.Object({
  practice_areas: Type.Array(Type.Object({ ...PracticeAreaOut, children: Type.Array(Type.Object(PracticeAreaOut), { description: 'Sub-areas' }) })),
});

export const IntentsInput = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'At most this many holds, newest first, 1 to 50 (default 10)' })) },
  { additionalProperties: false },
);

export const IntentsOutput = Type.Object({
  booking_intents: Type.Array(BookingIntentSchema),
  has_more: Type.Boolean({ description: 'Older holds than listed: raise limit' }),
});

export const EarliestSlotsInput = Type.Object(
  {
    city: City,
    practice_area: PracticeArea,
    language: SearchQuerySchema.properties.language,
    max_fee_eur: SearchQuerySchema.properties.max_fee_eur,
    lawyers: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3, description: 'How many lawyers (the best rated with free times), 1 to 5' })),
    slots_per_lawyer: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3, description: 'How many first free times per lawyer, 1 to 5' })),
  },
  { additionalProperties: false },
);

export const EarliestSlotsOutput = Type.Object({
  results: Type.Array(
    Type.Object({
      lawyer: LawyerSummarySchema,
      consultation_minutes: ConsultationMinutesSchema,
      formats: ConsultationFormatsSchema,
      price_breakdown: PriceBreakdownSchema,
      slots: Type.Array(SlotSchema, { description: 'The first free times, soonest first; hold one with hold_consultation_slot' }),
    }),
  ),
  cancellation_policy: PolicyTextSchema,
  searched_lawyers: Type.Integer({ description: 'Matching lawyers considered' }),
});

export const SuggestInput = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 2000, description: "The person's situation in their own words: Spanish, English, French or Arabic" }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3 })),
  },
  { additionalProperties: false },
);

export const SuggestOutput = Type.Object({
  suggestions: Type.Array(
    Type.Object({
      slug: Type.String({ description: 'Use as practice_area in search_lawyers' }),
      name: Type.String(),
      score: Type.Number(),
      matched: Type.Array(Type.String(), { description: 'Cue phrases found in the text (normalised)' }),
    }),
  ),
});

export const NoInput = Type.Object({}, { additionalProperties: false });

export const AccountOutput = Type.Object({
  user: Type.Object({ email: Type.String() }),
  app: Type.Object({ client_id: Type.String(), name: Type.String() }),
  levels: Type.Array(Type.String(), { description: 'Consent levels this app holds: directory:read, slots:hold, my-bookings:read' }),
  token_expires_at: DateTime,
  manage_url: Type.String({ format: 'uri', description: 'Where the person sees and disconnects connected apps' }),
});

/** hold_consultation_slot: the REST initiation body's slot fields (source and agent name are ours to set). */
export const HoldInput = Type.Object(
  {
    lawyer_id: InitiateBodySchema.properties.lawyer_id,
    date: InitiateBodySchema.properties.date,
    start_time: InitiateBodySchema.properties.start_time,
    end_time: InitiateBodySchema.properties.end_time,
    languages: PersonLanguagesInput,
  },
  { additionalProperties: false },
);

/** hold_consultation_slot: the REST initiation answer and, additive, the languages the person shares with the lawyer. */
export const HoldOutput = Type.Object({ ...InitiateResponseSchema.properties, languages_in_common: LanguagesInCommon });

export const IntentIdInput = Type.Object({ booking_intent_id: Uuid }, { additionalProperties: false });

export const ConsultationSchema = Type.Object(
  {
    booking_id: Uuid,
    booking_intent_id: Uuid,
    lawyer: Type.Object({ id: Uuid, name: Type.String(), city: Type.Union([Type.String(), Type.Null()]), timezone: Type.String() }),
    date: DateOnly,
    start_time: WallTime,
    end_time: WallTime,
    starts_at: DateTime,
    ends_at: DateTime,
    paid_cents: Type.Integer({ description: 'What the person paid: the consultation fee' }),
    currency: Type.Literal('EUR'),
    page_url: Type.String({ format: 'uri', description: 'The consultation on the site (the person must be signed in)' }),
    booked_at: DateTime,
    status: Type.Union(
      [Type.Literal('confirmed'), Type.Literal('cancelled_by_lawyer'), Type.Literal('cancelled_by_person'), Type.Literal('moved'), Type.Literal('held'), Type.Literal('no_show')],
      { description: "The consultation's own state (added in v1, additive). The booking intent stays `confirmed` whatever happens after; a consultation cancelled by the lawyer is `cancelled_by_lawyer` and is listed with the past ones, never as upcoming." },
    ),
    refund: Type.Union([Type.Literal('refunded'), Type.Literal('refunding'), Type.Literal('released'), Type.Null()], {
      description: 'After a cancellation by the lawyer: refunded in full, being refunded, or released (the card was never charged); null when nothing was given back',
    }),
    // -- what was bought (issue 20, additive) --
    consultation_minutes: Type.Integer({ description: 'How long the consultation lasts' }),
    format: Type.Union([Type.Literal('video'), Type.Literal('phone'), Type.Literal('in_person'), Type.Null()], { description: 'How it is held, as the person chose on the hold page; null for bookings made before the choice existed' }),
    reference: Type.String({ description: 'The booking reference the person quotes (8 characters)' }),
    what_happens_next: Type.Optional(Type.String({ description: 'get_my_booking only: in plain words, the video link (from 15 minutes before the start), the office address, or the number the lawyer calls' })),
    price_breakdown: Type.Optional(PriceBreakdownSchema),
    has_note: Type.Boolean({ description: 'Whether the person left a note for the lawyer (get_my_booking shows it, fenced)' }),
    note: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "get_my_booking only: the person's note for the lawyer, fenced as untrusted text" })),
  },
  { title: 'Consultation' },
);
export type ConsultationView = Static<typeof ConsultationSchema>;

/** What the person may still do with a consultation, and until when (personPolicy; docs/mcp.md#cancel-or-move). */
export const CancellationPolicySchema = Type.Object(
  {
    summary: Type.String({ description: 'The cancellation and move policy, as the site states it before paying' }),
    free_until: DateTime,
    can_cancel_with_refund: Type.Boolean({ description: 'Cancelling now refunds the payment in full (until free_until)' }),
    can_cancel_without_refund: Type.Boolean({ description: 'Cancelling now frees the time without a refund (after free_until, before the start)' }),
    can_move: Type.Boolean({ description: 'Moving to another free time of the same lawyer is allowed now (until free_until); the payment is kept' }),
    now: Type.String({ description: 'What the person can still do, and until when, in one sentence' }),
    cancel_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Where the person cancels it themselves (get_site_link purpose "cancel"); null when it can no longer be cancelled' }),
    move_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Where the person moves it themselves (get_site_link purpose "move"); null when it can no longer be moved' }),
  },
  { title: 'CancellationPolicy' },
);

/** get_my_booking: a consultation with its cancellation policy as it stands now (additive). */
export const MyBookingSchema = Type.Object({ ...ConsultationSchema.properties, cancellation_policy: CancellationPolicySchema }, { title: 'MyBooking' });

export const BookingsInput = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'At most this many upcoming and this many past consultations, 1 to 50 (default 5)' })) },
  { additionalProperties: false },
);

export const BookingsOutput = Type.Object({
  upcoming: Type.Array(ConsultationSchema, { description: 'Soonest first' }),
  past: Type.Array(ConsultationSchema, { description: 'Most recent first' }),
  upcoming_total: Type.Integer({ description: 'Upcoming consultations in all' }),
  past_total: Type.Integer({ description: 'Past consultations in all' }),
});

export const BookingIdInput = Type.Object({ booking_id: Uuid }, { additionalProperties: false });

export const SiteLinkInput = Type.Object(
  {
    purpose: Type.Union([Type.Literal('confirm_hold'), Type.Literal('consultation'), Type.Literal('cancel'), Type.Literal('move'), Type.Literal('my_consultations'), Type.Literal('connected_apps')], {
      description: 'confirm_hold: pay a hold (needs booking_intent_id); consultation: one booking (needs booking_id); cancel or move: the page where the person cancels or moves a booking themselves (needs booking_id); my_consultations; connected_apps',
    }),
    booking_intent_id: Type.Optional(Uuid),
    booking_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const SiteLinkOutput = Type.Object({
  url: Type.String({ format: 'uri' }),
  purpose: Type.String(),
  note: Type.String(),
});
