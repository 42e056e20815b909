import { Type, type Static } from 'typebox';
import { Currency, DateOnly, DateTime, Uuid, WallTime } from './common.ts';

export const SORTS = ['rating', 'price_asc', 'price_desc', 'reviews'] as const;

const LimitParam = Type.Integer({ minimum: 1, maximum: 25, default: 10, description: 'Page size, 1 to 25' });

export const SearchQuerySchema = Type.Object(
  {
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'City slug or name (case- and accent-insensitive), from GET /cities' })),
    practice_area: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Practice-area slug from GET /practice-areas; a parent area includes its sub-areas' })),
    language: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'ISO 639-1 code (ar) or language name (Arabic, árabe, العربية)' })),
    min_fee_eur: Type.Optional(Type.Number({ minimum: 0, maximum: 100000, description: 'Lowest base consultation fee, in euros' })),
    max_fee_eur: Type.Optional(Type.Number({ minimum: 0, maximum: 100000, description: 'Highest base consultation fee, in euros' })),
    sort: Type.Optional(Type.Union([Type.Literal('rating'), Type.Literal('price_asc'), Type.Literal('price_desc'), Type.Literal('reviews')], { description: 'Default rating (best first; ties by review count, then id)' })),
    page: Type.Integer({ minimum: 1, maximum: 100000, default: 1 }),
    limit: LimitParam,
    include_remote: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Additive (docs/lawyers.md#online-from-anywhere-in-spain). With `city`: also list lawyers from elsewhere in Spain who offer video or phone consultations (those results carry `remote: true`); in-person stays bound to the city. Default false: `city` keeps its meaning (lawyers of that city only) and the answer says in `remote_available` how many more there would be',
      }),
    ),
    languages: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "Additive. The languages the person reads, comma-separated, most preferred first (ISO 639-1 codes or names: `ar,fr`). Ranks lawyers who speak one of them first (then the requested sort) and adds `languages_in_common` to every result. Unlike `language`, it never leaves a lawyer out",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuerySchema>;

export const PracticeAreaRefSchema = Type.Object({ name: Type.String(), slug: Type.String(), is_primary: Type.Boolean() });

export const LawyerSummarySchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    city: Type.String(),
    practice_areas: Type.Array(PracticeAreaRefSchema),
    languages: Type.Array(Type.String({ description: 'ISO 639-1 code' })),
    consultation_fee_cents: Type.Integer({ description: "Lawyer's base fee in EUR cents" }),
    currency: Currency,
    platform_commission_percent: Type.Integer(),
    average_rating: Type.Union([Type.Number(), Type.Null()]),
    review_count: Type.Integer({ minimum: 0, description: 'How many reviews from verified clients average_rating is the mean of (additive; docs/reviews.md#aggregates)' }),
    total_bookings: Type.Union([Type.Integer(), Type.Null()]),
    next_available: Type.Union([DateOnly, Type.Null()], { description: "First date (lawyer's time zone) with a bookable slot within 90 days" }),
    profile_url: Type.String({ format: 'uri' }),
    booking_url: Type.String({ format: 'uri' }),
    remote: Type.Optional(
      Type.Boolean({ description: 'Additive; present with `include_remote=true` and a city: true when the lawyer is from another city and is listed for her video or phone consultations' }),
    ),
    languages_in_common: Type.Optional(
      Type.Array(Type.String({ description: 'ISO 639-1 code' }), {
        description: "Additive; present when the request gave the person's `languages`: those the lawyer speaks, in the person's order. Empty: she speaks none of them (an interpreter, or the person's Spanish, is needed)",
      }),
    ),
  },
  { title: 'LawyerSummary' },
);
export type LawyerSummary = Static<typeof LawyerSummarySchema>;

export const SearchResponseSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  has_more: Type.Boolean(),
  lawyers: Type.Array(LawyerSummarySchema),
  languages_matched: Type.Optional(
    Type.Integer({ description: "Additive; with `languages`: how many of `total` speak one of the person's languages (they come first)" }),
  ),
  remote_available: Type.Optional(
    Type.Integer({ description: 'Additive; a city search without `include_remote`: how many more lawyers from elsewhere would match with `include_remote=true` (video or phone)' }),
  ),
});
export type SearchResponse = Static<typeof SearchResponseSchema>;

export const LawyerIdParamsSchema = Type.Object({ lawyerId: Uuid }, { additionalProperties: false });

export const BarMembershipSchema = Type.Object({ bar_name: Type.String(), verified: Type.Boolean() });

/** The consultation she offers (additive fields, issue 18; docs/lawyers.md). */
export const ConsultationMinutesSchema = Type.Union([Type.Literal(30), Type.Literal(45), Type.Literal(60), Type.Literal(90)], {
  description: 'Length of the consultation in minutes (every slot is this long)',
});
export const ConsultationFormatsSchema = Type.Array(Type.Union([Type.Literal('video'), Type.Literal('phone'), Type.Literal('in_person')]), {
  description: 'How the consultation can be held: video (her own meeting link), phone, in_person (at her office); at least one',
});

export const LawyerProfileSchema = Type.Object(
  {
    ...LawyerSummarySchema.properties,
    consultation_minutes: ConsultationMinutesSchema,
    formats: ConsultationFormatsSchema,
    timezone: Type.String({ description: 'IANA time zone of the lawyer (slot times are wall-clock times in it)' }),
    bio: Type.Union([Type.String(), Type.Null()], { description: 'User-generated; fenced as untrusted text (see docs/fencing.md)' }),
    bar_memberships: Type.Array(BarMembershipSchema),
  },
  { title: 'LawyerProfile' },
);
export type LawyerProfile = Static<typeof LawyerProfileSchema>;

export const AvailabilityQuerySchema = Type.Object(
  {
    start_date: Type.Optional(DateOnly),
    end_date: Type.Optional(DateOnly),
    languages: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "Additive (docs/lawyers.md#online-from-anywhere-in-spain). The languages the person reads, comma-separated, most preferred first (ISO 639-1 codes or names: `ar,fr`; at most 6), as in search: the answer then carries `languages_in_common`. The slots are the same with or without it",
      }),
    ),
  },
  { additionalProperties: false },
);
export type AvailabilityQuery = Static<typeof AvailabilityQuerySchema>;

export const SlotSchema = Type.Object(
  {
    date: DateOnly,
    start_time: WallTime,
    end_time: WallTime,
    available: Type.Boolean(),
    timezone: Type.String({ description: 'IANA zone of the wall-clock times' }),
    starts_at: Type.String({ format: 'date-time', description: 'RFC 3339 with offset' }),
    ends_at: Type.String({ format: 'date-time', description: 'RFC 3339 with offset' }),
  },
  { title: 'AvailabilitySlot' },
);
export type AvailabilitySlot = Static<typeof SlotSchema>;

export const AvailabilityResponseSchema = Type.Object({
  lawyer_id: Uuid,
  lawyer_name: Type.String(),
  consultation_fee_cents: Type.Integer(),
  currency: Currency,
  platform_commission_percent: Type.Integer(),
  consultation_minutes: ConsultationMinutesSchema,
  formats: ConsultationFormatsSchema,
  timezone: Type.String(),
  start_date: DateOnly,
  end_date: DateOnly,
  slots: Type.Array(SlotSchema),
  booking_url: Type.String({ format: 'uri' }),
  profile_url: Type.String({ format: 'uri' }),
  languages_in_common: Type.Optional(
    Type.Array(Type.String({ description: 'ISO 639-1 code' }), {
      description: "Additive; present when the request gave the person's `languages`: those this lawyer speaks, in the person's order. Empty: she speaks none of them — tell the person before they pay (an interpreter, or their Spanish), and offer lawyers who do (search with `languages` and `include_remote=true`)",
    }),
  ),
});
export type AvailabilityResponse = Static<typeof AvailabilityResponseSchema>;

export const ReviewsQuerySchema = Type.Object({ limit: LimitParam }, { additionalProperties: false });

export const ReviewSchema = Type.Object(
  {
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Union([Type.String(), Type.Null()], { description: 'User-generated; fenced as untrusted text' }),
    date: Type.Union([DateTime, Type.Null()]),
    answer: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "The lawyer's one public answer, null without one. Third-party text, fenced like the comment (additive; docs/reviews.md#in-the-api-and-mcp)" }),
    ),
  },
  { title: 'Review' },
);

export const ReviewsResponseSchema = Type.Object({
  lawyer_id: Uuid,
  lawyer_name: Type.String(),
  average_rating: Type.Union([Type.Number(), Type.Null()]),
  total_bookings: Type.Union([Type.Integer(), Type.Null()]),
  total_reviews: Type.Integer({ description: 'Reviews from verified clients, all time' }),
  reviews: Type.Array(ReviewSchema),
});
export type ReviewsResponse = Static<typeof ReviewsResponseSchema>;

const PracticeAreaChild = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  parent_slug: Type.Union([Type.String(), Type.Null()]),
  children: Type.Array(Type.Unknown(), { description: 'Sub-areas (same shape)' }),
});

export const PracticeAreasResponseSchema = Type.Object({
  practice_areas: Type.Array(
    Type.Object({
      slug: Type.String(),
      name: Type.String(),
      description: Type.String(),
      parent_slug: Type.Union([Type.String(), Type.Null()]),
      children: Type.Array(PracticeAreaChild),
    }),
  ),
});

export const CitiesResponseSchema = Type.Object({
  provinces: Type.Array(
    Type.Object({
      code: Type.String({ description: 'INE province code' }),
      slug: Type.String(),
      name: Type.String(),
      autonomous_community: Type.String(),
      timezone: Type.String(),
    }),
  ),
  cities: Type.Array(
    Type.Object({
      slug: Type.String({ description: 'Value for the city search filter' }),
      name: Type.String(),
      province_code: Type.String(),
      province: Type.String(),
      autonomous_community: Type.String(),
      timezone: Type.String(),
      lawyer_count: Type.Integer({ description: 'Verified, listed lawyers in the city' }),
    }),
  ),
});
