import { z } from 'zod';
import { ROLES, SCOPES } from './access';
import { activeSuspensionSchema } from './moderation';
import {
  dateTimeInput,
  enumQuery,
  httpUrl,
  httpUrlOut,
  paginationQuery,
  searchText,
  text,
  timestamp,
} from './common';

export const PLANS = ['free', 'beta', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per hour and per day (DESIGN.md §6); enterprise limits are set per account by an admin. */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, { hourly: number; daily: number }> = {
  free: { hourly: 100, daily: 1_000 },
  beta: { hourly: 1_000, daily: 10_000 },
  pro: { hourly: 5_000, daily: 50_000 },
};

const MAX_LIMIT_VALUE = 1_000_000_000;

export const username = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(
    z
      .string()
      .min(3, 'must be at least 3 characters')
      .max(32, 'must be at most 32 characters')
      .regex(/^[a-z0-9_]+$/, 'must contain only letters, digits and underscores'),
  )
  .meta({ minLength: 3, maxLength: 32, description: 'Letters, digits and underscores; stored lower-case.' });

export const email = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.email('must be a valid email address').max(254, 'must be at most 254 characters'))
  .meta({ format: 'email', maxLength: 254 });

/** Passwords are never trimmed: every character counts. */
export const password = z
  .string()
  .min(10, 'must be at least 10 characters')
  .max(200, 'must be at most 200 characters');

export const displayName = text({ min: 1, max: 50 });

export const avatarUrl = httpUrl;

export const registerBody = z.strictObject({
  username,
  email,
  password,
  display_name: displayName.optional(),
});
export type RegisterBody = z.output<typeof registerBody>;

export const updateMeBody = z.strictObject({
  display_name: displayName.optional(),
  bio: text({ max: 500 }).optional(),
  avatar: avatarUrl.nullable().optional(),
});
export type UpdateMeBody = z.output<typeof updateMeBody>;

export const USER_SORTS = ['newest', 'reputation'] as const;
export const listUsersQuery = z.object({
  ...paginationQuery,
  q: searchText
    .optional()
    .describe(
      'Users whose username or display name starts with this, case and accents aside (`@mention` completion), best match first. 2–200 characters; not with `sort`. A search serves its best 1,000 matches: `total_items` counts at most 1,000 and `pagination.total_items_capped` says when there are more.',
    ),
  // Without a default: `newest` unless `q` orders by match.
  sort: enumQuery(USER_SORTS).optional(),
});
export type ListUsersQuery = z.output<typeof listUsersQuery>;

export const badgeSchema = z.strictObject({ id: z.int(), name: z.string(), icon: z.string() });

export const userSchema = z.strictObject({
  id: z.int(),
  username: z.string(),
  display_name: z.string(),
  avatar: httpUrlOut,
  bio: z.string(),
  reputation: z.int().min(0),
  badges: z.array(badgeSchema),
  stats: z.strictObject({ posts: z.int().min(0), comments: z.int().min(0), likes_received: z.int().min(0) }),
  joined_at: timestamp,
});
export type User = z.infer<typeof userSchema>;

/** What a user sees of themselves: the public user plus email, role and plan. */
export const meSchema = userSchema.extend({
  email: z.string(),
  role: z.enum(ROLES),
  plan: z.enum(PLANS),
});
export type Me = z.infer<typeof meSchema>;

export const scopeList = z
  .array(z.enum(SCOPES, { message: `must be one of ${SCOPES.join(', ')}` }))
  .min(1, 'must name at least one scope')
  .transform((scopes) => [...new Set(scopes)]);

export const createKeyBody = z.strictObject({
  name: text({ min: 1, max: 100 }),
  scopes: scopeList.optional(),
  expires_at: dateTimeInput()
    .refine((date) => date.getTime() > Date.now(), 'must be in the future')
    .nullable()
    .optional(),
});
export type CreateKeyBody = z.output<typeof createKeyBody>;

export const apiKeySchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createdKeySchema = apiKeySchema.omit({ last_used_at: true }).extend({ key: z.string() });
export type CreatedKey = z.infer<typeof createdKeySchema>;

const limitValue = z.int().min(1).max(MAX_LIMIT_VALUE);

export const setPlanBody = z.strictObject({
  plan: z.enum(PLANS, { message: `must be one of ${PLANS.join(', ')}` }),
  hourly_limit: limitValue.optional(),
  daily_limit: limitValue.optional(),
});
export type SetPlanBody = z.output<typeof setPlanBody>;

export const setRoleBody = z.strictObject({
  role: z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` }),
});

/** The gateway's question: which account does this key hash belong to, and with what rights? */
export const resolveKeyBody = z.strictObject({
  key_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a hex SHA-256'),
});

export const BEARER_CREDENTIALS = ['api_key', 'access_token'] as const;

export const resolvedKeySchema = z.strictObject({
  /** An API key or an OAuth access token; `key_id` is the id within that kind (absent: an API key). */
  credential: z.enum(BEARER_CREDENTIALS).optional(),
  key_id: z.int(),
  user_id: z.int(),
  role: z.enum(ROLES),
  plan: z.enum(PLANS),
  limits: z.strictObject({ hourly: z.int().min(1), daily: z.int().min(1) }),
  scopes: z.array(z.enum(SCOPES)),
  expires_at: timestamp.nullable(),
  /** The account's active suspension (DESIGN.md §12): the gateway refuses the credential while it lasts. */
  suspension: activeSuspensionSchema.nullable().default(null),
});
export type ResolvedKey = z.infer<typeof resolvedKeySchema>;

export const keyUsageBody = z.strictObject({
  used: z.array(z.strictObject({ key_id: z.int().min(1), at: timestamp })).max(10_000),
});
