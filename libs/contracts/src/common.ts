import { z } from 'zod';
import { RATE_LIMIT_CODES, VALIDATION_CODES } from './errors';

/** The API release the gateway announces and the OpenAPI document describes. */
export const API_VERSION = '1.0.0';

export const MAX_ID = 2147483647;

/** A positive 32-bit integer id, as in bodies (no coercion: "5" is invalid_type). */
export const idField = z.int({ error: 'must be an integer' }).min(1).max(MAX_ID);

/** `YYYY-MM-DDThh:mm:ssZ`, the only timestamp form on the wire: a real instant, written as we write it. */
export const timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  .refine((value) => {
    const date = new Date(value);
    // Date rolls 2027-02-30 over to March: only a value that comes back unchanged is a real date.
    return !Number.isNaN(date.getTime()) && toTimestamp(date) === value;
  }, 'must be a real date-time');

/** The last instant a timestamp on the wire can name. */
export const LATEST_DATE = new Date('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time a client sends, with `Z` or an offset, as a Date: range-checked after the
 * offset is applied, so nothing beyond 9999-12-31Z gets in (it could not be written back as a
 * timestamp).
 */
export const dateTimeInput = () =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' })
    .transform((value) => new Date(value))
    .refine((date) => !Number.isNaN(date.getTime()) && date <= LATEST_DATE, {
      message: 'must not be later than 9999-12-31T23:59:59Z',
      params: { code: 'too_big' },
    });

export function toTimestamp(date: Date): string {
  // toISOString always ends in `.sssZ`.
  return `${date.toISOString().slice(0, -5)}Z`;
}

const LONE_SURROGATE = /\p{Cs}/u;

export function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}

/**
 * A trimmed text field measured in characters (code points, so an emoji counts once).
 * NUL characters and broken UTF-16 are refused, because PostgreSQL could not return them byte-for-byte.
 */
export function text({
  min = 0,
  max,
  blankIsShort = false,
}: {
  min?: number;
  max: number;
  blankIsShort?: boolean;
}) {
  const schema = z.string().transform((raw, ctx) => {
    const value = raw.trim();
    const fail = (code: string, message: string) => {
      ctx.addIssue({ code: 'custom', message, params: { code } });
      return z.NEVER;
    };
    if (value.includes('\u0000')) return fail('invalid_value', 'must not contain NUL characters');
    if (LONE_SURROGATE.test(value)) return fail('invalid_value', 'must be valid Unicode text');
    const length = codePointLength(value);
    if (min > 0 && length === 0 && !blankIsShort) return fail('required', 'is required');
    if (length < min) return fail('too_short', `must be at least ${min} characters`);
    if (length > max) return fail('too_long', `must be at most ${max} characters`);
    return value;
  });
  // The JSON Schema (OpenAPI) view of the limits above; JSON Schema also counts code points.
  return schema.meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: max });
}

/** The search parameter `q` (DESIGN.md §11): 2–200 characters once trimmed; shorter (blank too) is `too_short`. */
export const searchText = text({ min: 2, max: 200, blankIsShort: true });

/**
 * A search (`q`) serves its best SEARCH_CAP matches, as GitHub's search API serves 1,000:
 * `total_items` counts at most this many (`total_items_capped` says when there are more) and a page
 * past them is empty. Counting or ranking further would cost in proportion to every match, and no
 * reader pages through a thousand results of one search.
 */
export const SEARCH_CAP = 1000;

/** The part of the page [offset, offset + limit) that lies within a search's first SEARCH_CAP matches. */
export function searchWindow(offset: number, limit: number): { offset: number; limit: number } {
  return { offset, limit: Math.max(0, Math.min(limit, SEARCH_CAP - offset)) };
}

/** How many rows a search matches: exact up to SEARCH_CAP, else SEARCH_CAP and `capped`. */
export interface SearchTotal {
  total: number;
  capped: boolean;
}

/** The SearchTotal of `count` matches, counted up to at least SEARCH_CAP + 1. */
export const searchTotal = (count: number): SearchTotal =>
  count > SEARCH_CAP ? { total: SEARCH_CAP, capped: true } : { total: count, capped: false };

/** An integer query-string parameter within [min, max]. */
export function intQuery(min: number, max: number) {
  const schema = z.string().transform((raw, ctx) => {
    if (!/^-?\d{1,16}$/.test(raw)) {
      ctx.addIssue({ code: 'custom', message: 'must be an integer', params: { code: 'invalid_type' } });
      return z.NEVER;
    }
    const value = Number(raw);
    if (value < min) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${min}`, params: { code: 'too_small' } });
      return z.NEVER;
    }
    if (value > max) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${max}`, params: { code: 'too_big' } });
      return z.NEVER;
    }
    return value;
  });
  // On the wire a query value is text; clients (and the OpenAPI document) treat it as an integer.
  return schema.meta({ type: 'integer', minimum: min, maximum: max });
}

/** One of `values` in a query string. */
export function enumQuery<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { message: `must be one of ${values.join(', ')}` });
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export const paginationQuery = {
  page: intQuery(1, MAX_ID).default(1),
  limit: intQuery(1, MAX_LIMIT).default(DEFAULT_LIMIT),
};

export const paginationSchema = z.strictObject({
  current_page: z.int().min(1),
  total_pages: z.int().min(0),
  total_items: z.int().min(0),
  per_page: z.int().min(1),
  /** On a search only: true when it matches more than the SEARCH_CAP that `total_items` counts. */
  total_items_capped: z.boolean().optional(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** An opaque cursor is short; anything longer is not one of ours (DESIGN.md §9 bounds the query). */
export const MAX_CURSOR_LENGTH = 200;

/** `cursor` instead of `page`, on the time-ordered lists (DESIGN.md §10). */
export const cursorQuery = {
  cursor: z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_CURSOR_LENGTH, `must be at most ${MAX_CURSOR_LENGTH} characters`)
    .optional(),
};

const nextCursor = z.string().nullable();

/** A time-ordered list asked by page: the page numbers, and the cursor that continues after it. */
export const timePaginationSchema = paginationSchema.extend({ next_cursor: nextCursor });
/** A time-ordered list asked by cursor: no totals, which a walk never needs. */
export const cursorPaginationSchema = z.strictObject({ per_page: z.int().min(1), next_cursor: nextCursor });

export function timeListEnvelope<T extends z.ZodType>(item: T) {
  return z.strictObject({
    success: z.literal(true),
    data: z.array(item),
    pagination: z.union([timePaginationSchema, cursorPaginationSchema]),
  });
}

export function singleEnvelope<T extends z.ZodType>(item: T) {
  return z.strictObject({ success: z.literal(true), data: item });
}

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.strictObject({ success: z.literal(true), data: z.array(item), pagination: paginationSchema });
}

export const errorEnvelope = z.strictObject({
  error: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  retry_after: z.int().min(1).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

export const fieldErrorSchema = z.strictObject({
  field: z.string(),
  code: z.enum(VALIDATION_CODES),
  message: z.string(),
});

/** `400 validation_error`: the first failure in `field`/`code`, every failure in `errors`. */
export const validationErrorEnvelope = errorEnvelope.extend({
  error: z.literal('validation_error'),
  details: z.strictObject({
    field: z.string(),
    code: z.enum(VALIDATION_CODES),
    errors: z.array(fieldErrorSchema).min(1),
  }),
});

/** Every `429` carries `retry_after`, in seconds (DESIGN.md §6, §21). */
export const rateLimitErrorEnvelope = errorEnvelope.extend({
  error: z.enum(RATE_LIMIT_CODES),
  retry_after: z.int().min(1),
});

export const deletedSchema = z.strictObject({ id: z.int().min(1), deleted: z.literal(true) });
export type Deleted = z.infer<typeof deletedSchema>;
/** The answer to a DELETE: the id of what is gone. */
export const deleted = (id: number): Deleted => ({ id, deleted: true });

/**
 * The avatar of a user who has not set one: an SVG users-service serves itself at
 * `<public base>/avatars/<user id>.svg` (no key; cached for a day). `base` is PUBLIC_BASE_URL or the
 * scheme and host of the request (http-kit's publicBase).
 */
export const defaultAvatarUrl = (base: string, userId: number): string => `${base}/avatars/${userId}.svg`;

/** An absolute http(s) URL in an answer: `format: uri` plus a pattern, so a `data:` URI fails validation. */
export const httpUrlOut = z
  .string()
  .regex(/^https?:\/\/[^/?#\s]+/)
  .meta({ format: 'uri', description: 'An absolute http(s) URL.' });

/** An absolute http(s) URL with a host, at most 2000 characters. */
export const httpUrl = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !!url.hostname;
    } catch {
      return false;
    }
  }, 'must be an http or https URL')
  .meta({ format: 'uri', description: 'An absolute http(s) URL.' });

/** `GET /api/v1`: what the gateway says about itself. */
export const apiInfoSchema = z.strictObject({ name: z.string(), version: z.string() });
