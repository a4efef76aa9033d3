import { z } from 'zod';
import { timestamp } from './common';
import { MODERATION_ACTIONS, MODERATION_TARGETS } from './moderation';
import { MAX_MENTIONS, notificationSchema } from './notifications';

/** Events delivered to webhook subscribers (DESIGN.md §7); everything else stays internal. */
export const PUBLIC_EVENTS = [
  'post.created',
  'post.updated',
  'post.deleted',
  'comment.created',
  'user.registered',
  'user.deleted',
] as const;
export type PublicEvent = (typeof PUBLIC_EVENTS)[number];

const id = z.int().min(1);

/**
 * A stored public event whose subject was erased, deleted or hidden (DESIGN.md §20): its text emptied,
 * an erased member's profile fields `deleted-<id>`, and this mark added. Never on a fresh event.
 */
const redacted = z.literal(true).optional();

/** What an erasure does with the member's posts and comments: kept anonymised, or soft-deleted. */
export const ERASED_CONTENT = ['keep', 'delete'] as const;

export const eventData = {
  'post.created': z.strictObject({ id, title: z.string(), author_id: id, redacted }),
  'post.updated': z.strictObject({
    id,
    title: z.string(),
    author_id: id,
    changed: z.array(z.string()),
    redacted,
  }),
  'post.deleted': z.strictObject({ id, author_id: id, redacted }),
  'comment.created': z.strictObject({
    id,
    post_id: id,
    author_id: id,
    parent_id: id.nullable(),
    redacted,
  }),
  'user.registered': z.strictObject({ id, username: z.string(), display_name: z.string(), redacted }),
  // An account was erased (DESIGN.md §20): its id names no one any more.
  'user.deleted': z.strictObject({ id }),
  // Internal: what every service forgets of an erased account, and what becomes of its content.
  'user.erased': z.strictObject({ id, content: z.enum(ERASED_CONTENT) }),
  // Internal events: consumed by other services, never delivered to webhooks.
  // avatar: the URL the user set, null for the default one (each service builds its URL per request).
  'user.updated': z.strictObject({
    id,
    username: z.string(),
    display_name: z.string(),
    avatar: z.string().nullable(),
  }),
  // title: for the like notification (absent on events published before notifications existed)
  'post.liked': z.strictObject({ post_id: id, user_id: id, author_id: id, title: z.string().optional() }),
  'post.unliked': z.strictObject({ post_id: id, user_id: id, author_id: id, title: z.string().optional() }),
  // A new post or comment, with what its notifications need (DESIGN.md §13): whom it answers,
  // whom it mentions (raw lower-case usernames, at most MAX_MENTIONS) and how to show it.
  'content.created': z.strictObject({
    type: z.enum(['post', 'comment']),
    id,
    post_id: id,
    author_id: id,
    post_author_id: id,
    parent_author_id: id.nullable(),
    title: z.string(),
    excerpt: z.string(),
    mentions: z.array(z.string()).max(MAX_MENTIONS),
  }),
  // A notification stored for recipient_id: every users-service replica pushes it to the streams it holds.
  'notification.created': z.strictObject({ recipient_id: id, notification: notificationSchema }),
  'comment.deleted': z.strictObject({ id, post_id: id, author_id: id }),
  'api_key.revoked': z.strictObject({ id, user_id: id, prefix: z.string() }),
  // role or plan changed: cached key resolutions of this user are stale
  'user.access_changed': z.strictObject({ id }),
  // OAuth access tokens revoked (one, a grant's, or an app's): the gateway drops them from its cache
  'oauth_token.revoked': z.strictObject({ ids: z.array(id).min(1) }),
  // A moderator's act, or an automatic hide (actor_id null), for the audit log (DESIGN.md §12)
  'moderation.action': z.strictObject({
    actor_id: id.nullable(),
    action: z.enum(MODERATION_ACTIONS),
    target_type: z.enum(MODERATION_TARGETS),
    target_id: id,
    reason: z.string().nullable(),
  }),
} as const;

export type EventType = keyof typeof eventData;
export type EventData<E extends EventType> = z.infer<(typeof eventData)[E]>;

/** The body a webhook endpoint receives for `event`, exactly `{event, timestamp, data}` (DESIGN.md §7). */
export function webhookPayload<E extends PublicEvent>(event: E) {
  return z.strictObject({ event: z.literal(event), timestamp, data: eventData[event] });
}
