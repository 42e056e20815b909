/**
 * The shape of one lawyer as it enters the directory: a line of a `consulta import` JSON Lines
 * file, and what the demo seed generator produces. One schema, so seed and import share every rule.
 */
import { Type, type Static } from 'typebox';

export const TIME_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$';
export const DATE_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$';
export const SLOT_MINUTES = [15, 20, 30, 45, 60, 90, 120] as const;

const Time = Type.String({ pattern: TIME_PATTERN, description: 'a wall-clock time in HH:MM:SS format (the lawyer\'s zone)' });
const DateString = Type.String({ pattern: DATE_PATTERN, format: 'date' });
const SlotMinutes = Type.Union(
  [Type.Literal(15), Type.Literal(20), Type.Literal(30), Type.Literal(45), Type.Literal(60), Type.Literal(90), Type.Literal(120)],
  { description: 'Slot length in minutes' },
);

export const LawyerRecordSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', description: 'Stable id; generated when absent.' })),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'a name with at least one visible character' }),
    city: Type.String({ minLength: 1, maxLength: 100, description: 'City slug from GET /cities' }),
    consultation_fee_cents: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
    platform_commission_percent: Type.Integer({ minimum: 0, maximum: 100 }),
    bio: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
    contact_email: Type.Optional(
      Type.Union([Type.String({ format: 'email', maxLength: 254, description: 'where consultation notices are emailed; never published' }), Type.Null()]),
    ),
    verified: Type.Boolean(),
    listed: Type.Boolean(),
    languages: Type.Array(Type.String({ pattern: '^[a-z]{2}$', description: 'an ISO 639-1 code (two lower-case letters)' }), {
      minItems: 1,
      maxItems: 30,
      uniqueItems: true,
    }),
    practice_areas: Type.Array(
      Type.Object(
        { slug: Type.String({ minLength: 1, maxLength: 100 }), is_primary: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 40 },
    ),
    bar_memberships: Type.Array(
      Type.Object(
        {
          bar_name: Type.String({ minLength: 1, maxLength: 200 }),
          verified: Type.Boolean(),
          membership_number: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9A-Za-z./ -]+$', description: 'the number the colegio gave her' })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10 },
    ),
    weekly_hours: Type.Array(
      Type.Object(
        {
          weekday: Type.Integer({ minimum: 1, maximum: 7, description: 'ISO weekday, 1 = Monday' }),
          start_time: Time,
          end_time: Time,
          slot_minutes: SlotMinutes,
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    date_exceptions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            date: DateString,
            start_time: Type.Optional(Time),
            end_time: Type.Optional(Time),
            slot_minutes: Type.Optional(SlotMinutes),
          },
          { additionalProperties: false, description: 'Without times: closed all day. With times: replaces that day\'s weekly hours.' },
        ),
        { maxItems: 1000 },
      ),
    ),
    reviews: Type.Optional(
      Type.Array(
        Type.Object(
          {
            rating: Type.Integer({ minimum: 1, maximum: 5 }),
            comment: Type.Optional(Type.Union([Type.String({ maxLength: 5000 }), Type.Null()])),
            date: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
            verified_client: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        { maxItems: 10_000 },
      ),
    ),
    // Accepted for compatibility, not stored: total_bookings is computed from records (docs/reviews.md#aggregates).
    total_bookings: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    consultation_minutes: Type.Optional(
      Type.Union([Type.Literal(30), Type.Literal(45), Type.Literal(60), Type.Literal(90)], {
        description: 'The consultation\'s length; absent: the weekly hours\' slot length when it is one of these, else 60',
      }),
    ),
    formats: Type.Optional(
      Type.Object(
        {
          video_url: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^https://[^\\s]+$', description: 'her own meeting link (https only)' }), Type.Null()])),
          phone: Type.Optional(Type.Boolean()),
          office_address: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 300 }), Type.Null()])),
        },
        { additionalProperties: false, description: 'The consultation formats she offers; absent: phone only' },
      ),
    ),
  },
  { additionalProperties: false },
);

export type LawyerRecord = Static<typeof LawyerRecordSchema>;
