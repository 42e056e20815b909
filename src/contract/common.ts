/**
 * The public contract, as TypeBox schemas: one source for request validation, response
 * serialisation, the OpenAPI document, the domain's return types and (later) MCP tool schemas.
 */
import { Type } from 'typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'a UUID' });
export const DateOnly = Type.String({ format: 'date', description: 'a calendar date in YYYY-MM-DD format', examples: ['2026-11-23'] });
export const DateTime = Type.String({ format: 'date-time' });
export const WallTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$', description: 'a time in HH:MM:SS format', examples: ['10:00:00'] });
export const Currency = Type.Literal('EUR');

/** Routes without query parameters reject any, like every other route rejects unknown ones. */
export const NoQuerySchema = Type.Object({}, { additionalProperties: false });

export const FieldErrorSchema = Type.Object({
  pointer: Type.String({ description: 'JSON pointer into the request: /query/limit, /body/date, /params/lawyerId' }),
  detail: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'Documentation URL of the error code' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable code' }),
    instance: Type.String({ description: 'The X-Request-Id of the request' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'Each offending field (validation problems only)' })),
  },
  { title: 'Problem', description: 'RFC 9457 problem details' },
);

/** Problem responses a route declares, by status. */
export function problems(...statuses: number[]): Record<number, typeof ProblemSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema]));
}
