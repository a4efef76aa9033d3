import { z } from 'zod';
import { cursorQuery, dateTimeInput, enumQuery, paginationQuery, text, timestamp } from './common';

/*
 * Moderation (DESIGN.md §12): flags and the review queue (posts-service), suspension (users-service)
 * and the audit log of every moderator act (posts-service, fed by `moderation.action` events).
 */

export const FLAG_REASONS = ['spam', 'abuse', 'off_topic', 'other'] as const;
export const FLAG_TARGETS = ['post', 'comment'] as const;
export type FlagTarget = (typeof FLAG_TARGETS)[number];
export const FLAG_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const FLAG_ACTIONS = ['none', 'hide', 'unhide', 'delete'] as const;
/** Open flags from this many different users hide an item until a moderator decides. */
export const FLAGS_TO_HIDE = 3;

export const createFlagBody = z.strictObject({
  reason: z.enum(FLAG_REASONS, { message: `must be one of ${FLAG_REASONS.join(', ')}` }),
  note: text({ max: 500 }).optional(),
});
export type CreateFlagBody = z.output<typeof createFlagBody>;

export const flagSchema = z.strictObject({
  id: z.int(),
  target_type: z.enum(FLAG_TARGETS),
  target_id: z.int(),
  reason: z.enum(FLAG_REASONS),
  note: z.string().nullable(),
  status: z.enum(FLAG_STATUSES),
  created_at: timestamp,
});
export type Flag = z.infer<typeof flagSchema>;

export const listFlagsQuery = z.object({
  ...paginationQuery,
  status: enumQuery(FLAG_STATUSES).default('open'),
  target_type: enumQuery(FLAG_TARGETS).optional(),
});
export type ListFlagsQuery = z.output<typeof listFlagsQuery>;

export const decideFlagBody = z.strictObject({
  status: z.enum(['resolved', 'dismissed'], { message: 'must be resolved or dismissed' }),
  action: z.enum(FLAG_ACTIONS, { message: `must be one of ${FLAG_ACTIONS.join(', ')}` }).optional(),
  /** Why, for the audit log. */
  reason: text({ max: 500 }).optional(),
});
export type DecideFlagBody = z.output<typeof decideFlagBody>;

export const suspensionBody = z.strictObject({
  until: dateTimeInput()
    .refine((date) => date.getTime() > Date.now(), 'must be in the future')
    .optional(),
  reason: text({ min: 1, max: 500 }),
});
export type SuspensionBody = z.output<typeof suspensionBody>;

export const suspensionSchema = z.strictObject({
  user_id: z.int(),
  until: timestamp.nullable(),
  reason: z.string(),
  created_at: timestamp,
});
export type Suspension = z.infer<typeof suspensionSchema>;

export const MODERATION_TARGETS = ['post', 'comment', 'user'] as const;
export const MODERATION_ACTIONS = [
  'pin',
  'unpin',
  'lock',
  'unlock',
  'hide',
  'unhide',
  'delete',
  'resolve_flags',
  'dismiss_flags',
  'suspend',
  'unsuspend',
] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/** One entry of the audit log: `actor_id` null for an automatic hide (three open flags). */
export const moderationActionSchema = z.strictObject({
  id: z.int(),
  actor_id: z.int().nullable(),
  action: z.enum(MODERATION_ACTIONS),
  target_type: z.enum(MODERATION_TARGETS),
  target_id: z.int(),
  reason: z.string().nullable(),
  created_at: timestamp,
});
export type ModerationActionEntry = z.infer<typeof moderationActionSchema>;

export const listModerationActionsQuery = z.object({
  ...paginationQuery,
  ...cursorQuery,
});
export type ListModerationActionsQuery = z.output<typeof listModerationActionsQuery>;

/** `DELETE /users/{id}/suspension`: the account works again. */
export const liftedSuspensionSchema = z.strictObject({ user_id: z.int(), lifted: z.literal(true) });
export type LiftedSuspension = z.infer<typeof liftedSuspensionSchema>;

/** A suspension as the gateway's key lookup carries it: until when (null: until lifted), and why. */
export const activeSuspensionSchema = z.strictObject({ until: timestamp.nullable(), reason: z.string() });
export type ActiveSuspension = z.infer<typeof activeSuspensionSchema>;
