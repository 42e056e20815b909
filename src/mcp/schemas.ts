/**
 * The MCP tools' input and output schemas: the REST contract's TypeBox schemas (src/contract)
 * wherever a tool mirrors an endpoint, and a few compositions of them, exposed to the SDK as
 * Standard Schemas validated by the same Ajv setup as the API (formats included, no type
 * coercion: tool arguments are JSON).
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { Type, type Static, type TSchema } from 'typebox';
import { InitiateBodySchema } from '../contract/booking.ts';
import { DateOnly, DateTime, Uuid, WallTime } from '../contract/common.ts';
import { AvailabilityQuerySchema, LawyerSummarySchema, SearchQuerySchema, SlotSchema } from '../contract/directory.ts';
import { createAjv } from '../domain/validation.ts';

const ajv = createAjv({ strict: false, coerceTypes: false });

/** JSON Schema of a TypeBox schema, as plain data (TypeBox's own symbols dropped). */
export function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
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
        return {
          issues: (validate.errors ?? []).map((e) => ({
            message: `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`,
            path: e.instancePath.split('/').filter(Boolean),
          })),
        };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

const LawyerId = Type.String({ format: 'uuid', description: 'A lawyer id from search_lawyers or find_earliest_slots' });

/** search_lawyers: the REST query, with page and limit optional (defaults 1 and 10). */
export const SearchInput = Type.Object(
  {
    ...SearchQuerySchema.properties,
    page: Type.Optional(SearchQuerySchema.properties.page),
    limit: Type.Optional(SearchQuerySchema.properties.limit),
  },
  { additionalProperties: false },
);

export const LawyerIdInput = Type.Object({ lawyer_id: LawyerId }, { additionalProperties: false });

export const ReviewsInput = Type.Object(
  { lawyer_id: LawyerId, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 10, description: 'How many reviews, 1 to 25' })) },
  { additionalProperties: false },
);

export const AvailabilityInput = Type.Object({ lawyer_id: LawyerId, ...AvailabilityQuerySchema.properties }, { additionalProperties: false });

export const EarliestSlotsInput = Type.Object(
  {
    city: SearchQuerySchema.properties.city,
    practice_area: SearchQuerySchema.properties.practice_area,
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
      slots: Type.Array(SlotSchema, { description: 'The first free times, soonest first; hold one with hold_consultation_slot' }),
    }),
  ),
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
  },
  { additionalProperties: false },
);

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
  },
  { title: 'Consultation' },
);
export type ConsultationView = Static<typeof ConsultationSchema>;

export const BookingsOutput = Type.Object({ upcoming: Type.Array(ConsultationSchema), past: Type.Array(ConsultationSchema) });

export const BookingIdInput = Type.Object({ booking_id: Uuid }, { additionalProperties: false });

export const SiteLinkInput = Type.Object(
  {
    purpose: Type.Union([Type.Literal('confirm_hold'), Type.Literal('consultation'), Type.Literal('my_consultations'), Type.Literal('connected_apps')], {
      description: 'confirm_hold: pay a hold (needs booking_intent_id); consultation: one booking (needs booking_id); my_consultations; connected_apps',
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
