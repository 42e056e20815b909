import { Type, type Static } from 'typebox';
import { Currency, DateOnly, DateTime, Uuid, WallTime } from './common.ts';

export const InitiateBodySchema = Type.Object(
  {
    lawyer_id: Uuid,
    date: DateOnly,
    start_time: WallTime,
    end_time: WallTime,
    source: Type.Optional(Type.Union([Type.Literal('ai_agent'), Type.Literal('api'), Type.Literal('widget')])),
    agent_name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  },
  { additionalProperties: false },
);
export type InitiateBody = Static<typeof InitiateBodySchema>;

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'at most 255 characters' })),
});

const SlotRefSchema = Type.Object({
  date: DateOnly,
  start_time: WallTime,
  end_time: WallTime,
  timezone: Type.String(),
  starts_at: Type.String({ format: 'date-time' }),
  ends_at: Type.String({ format: 'date-time' }),
});

export const InitiateResponseSchema = Type.Object(
  {
    booking_intent_id: Type.Union([Uuid, Type.Null()], { description: 'null for test keys' }),
    test: Type.Optional(Type.Literal(true, { description: 'present (and true) for test keys only' })),
    confirmation_url: Type.String({ format: 'uri' }),
    expires_at: DateTime,
    slot: SlotRefSchema,
    lawyer: Type.Object({
      id: Uuid,
      name: Type.String(),
      city: Type.String(),
      consultation_fee_cents: Type.Integer(),
      currency: Currency,
      platform_commission_percent: Type.Integer(),
      profile_url: Type.String({ format: 'uri' }),
    }),
    message: Type.String(),
  },
  { title: 'InitiateResponse' },
);
export type InitiateResponse = Static<typeof InitiateResponseSchema>;

export const SlotUnavailableSchema = Type.Object(
  { code: Type.Literal('slot_unavailable'), message: Type.String() },
  { title: 'SlotUnavailable', description: 'Deliberately generic: the same body whatever the reason (taken, past, outside the schedule, unknown lawyer).' },
);

export const BookingIntentSchema = Type.Object(
  {
    booking_intent_id: Uuid,
    status: Type.Union([Type.Literal('pending'), Type.Literal('confirmed'), Type.Literal('expired')]),
    slot: SlotRefSchema,
    expires_at: DateTime,
    confirmed_at: Type.Union([DateTime, Type.Null()]),
    created_at: DateTime,
    confirmation_url: Type.String({ format: 'uri' }),
    lawyer_id: Uuid,
  },
  { title: 'BookingIntent' },
);
export type BookingIntent = Static<typeof BookingIntentSchema>;

export const IntentIdParamsSchema = Type.Object({ intentId: Uuid }, { additionalProperties: false });
