import { Type, type Static } from 'typebox';
import { DateOnly, DateTime } from './common.ts';

const Limits = Type.Object({
  per_minute: Type.Integer(),
  per_day: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no daily quota (tier internal)' }),
});

export const KeyResponseSchema = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, safe to show' }),
    name: Type.Union([Type.String(), Type.Null()]),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    tier: Type.Union([Type.Literal('free'), Type.Literal('partner'), Type.Literal('internal')]),
    scopes: Type.Array(Type.String()),
    owner: Type.Union([
      Type.Object({ type: Type.Literal('user'), email: Type.String() }),
      Type.Object({ type: Type.Literal('firm'), slug: Type.String() }),
    ]),
    limits: Limits,
    expires_at: Type.Union([DateTime, Type.Null()]),
    expired: Type.Boolean(),
    suspension: Type.Union([
      Type.Object({ by: Type.Union([Type.Literal('firm'), Type.Literal('operator')]), reason: Type.String(), at: DateTime }),
      Type.Null(),
    ]),
    allowed_ips: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: any address' }),
    created_at: DateTime,
  },
  { title: 'ApiKey', description: 'The calling key, never its secret' },
);
export type KeyResponse = Static<typeof KeyResponseSchema>;

export const WindowSchema = Type.Object({
  id: Type.String({ description: 'minute or day' }),
  limit: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  reset_seconds: Type.Integer({ description: 'Whole seconds until the window resets' }),
  resets_at: DateTime,
});

export const UsageResponseSchema = Type.Object(
  {
    key_id: Type.String(),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    tier: Type.String(),
    limits: Limits,
    windows: Type.Array(WindowSchema, { description: 'Current rate-limit windows' }),
    daily: Type.Array(
      Type.Object({
        date: DateOnly,
        requests: Type.Integer(),
        errors: Type.Integer({ description: 'Responses with status >= 400' }),
        rate_limited: Type.Integer({ description: 'Responses with status 429' }),
        server_errors: Type.Integer({ description: 'Responses with status >= 500' }),
        latency_ms: Type.Object(
          {
            p50: Type.Union([Type.Number(), Type.Null()]),
            p95: Type.Union([Type.Number(), Type.Null()]),
          },
          { description: 'Server time of the median and the 95th-percentile request, rounded up to the next step of a histogram whose steps are 19 % apart; null on a day without requests' },
        ),
      }),
      { description: 'The last 30 UTC days, oldest first, live traffic only (test keys are excluded); today is included and may lag by about a second' },
    ),
    errors_by_code: Type.Array(
      Type.Object({
        code: Type.Union([Type.String(), Type.Null()], { description: 'The problem code (documented at /docs/errors/{code}); null for an error answered without one' }),
        count: Type.Integer(),
      }),
      { description: 'Errors (status >= 400) over the same 30 days by problem code, most frequent first' },
    ),
    top_endpoints: Type.Array(
      Type.Object({
        method: Type.String(),
        route: Type.String({ description: "The route pattern, e.g. /api/v1/lawyers/{lawyerId}; '*' for paths that matched no route" }),
        requests: Type.Integer(),
        errors: Type.Integer({ description: 'Responses with status >= 400' }),
      }),
      { description: 'The ten most requested endpoints over the same 30 days, most requested first' },
    ),
  },
  { title: 'Usage' },
);
export type UsageResponse = Static<typeof UsageResponseSchema>;
