import { z } from 'zod';
import { cursorQuery, enumQuery, idField, paginationQuery, timestamp } from './common';

/** What a member is told about (DESIGN.md §13). */
export const NOTIFICATION_KINDS = ['reply', 'mention', 'like', 'badge'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** At most this many distinct `@username`s of one post or comment are notified. */
export const MAX_MENTIONS = 10;
/** A like notification names the latest this many likers. */
export const MAX_LIKE_ACTORS = 3;
/** At most this many notification streams open per account; the next is `429`. */
export const MAX_STREAMS_PER_ACCOUNT = 5;
/** `Last-Event-ID` replays at most this many of what was missed. */
export const STREAM_REPLAY_LIMIT = 100;
/** Ids a `POST /notifications/read` names at once. */
export const MAX_MARK_IDS = 100;

const actorSchema = z.strictObject({ id: z.int(), username: z.string(), display_name: z.string() });

export const notificationSubject = z.strictObject({
  type: z.enum(['post', 'comment', 'badge']),
  id: z.int(),
  /** The post a comment is on. */
  post_id: z.int().optional(),
  /** The post's title (for a comment: the title of its post), or the badge's name. */
  title: z.string().optional(),
  /** The start of the post's or comment's text, as plain text. */
  excerpt: z.string().optional(),
});
export type NotificationSubject = z.infer<typeof notificationSubject>;

export const notificationSchema = z.strictObject({
  id: z.int(),
  kind: z.enum(NOTIFICATION_KINDS),
  read: z.boolean(),
  created_at: timestamp,
  /** Who did it (the latest liker for a like); null for a badge. */
  actor: actorSchema.nullable(),
  /** A like only: the latest likers, newest first. */
  actors: z.array(actorSchema).max(MAX_LIKE_ACTORS).optional(),
  /** A like only: how many liked since it was last read. */
  count: z.int().min(1).optional(),
  subject: notificationSubject,
});
export type Notification = z.infer<typeof notificationSchema>;

export const listNotificationsQuery = z.object({
  ...paginationQuery,
  ...cursorQuery,
  unread: enumQuery(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .meta({ description: '`true`: only the unread ones.' }),
});
export type ListNotificationsQuery = z.output<typeof listNotificationsQuery>;

export const unreadCountSchema = z.strictObject({ unread: z.int().min(0) });
export type UnreadCount = z.infer<typeof unreadCountSchema>;

export const markReadBody = z.union(
  [
    z.strictObject({ ids: z.array(idField).min(1).max(MAX_MARK_IDS) }),
    z.strictObject({ all: z.literal(true) }),
  ],
  { message: `must be {"ids": [1–${MAX_MARK_IDS} ids]} or {"all": true}` },
);
export type MarkReadBody = z.output<typeof markReadBody>;

export const markedSchema = z.strictObject({ marked: z.int().min(0) });
export type Marked = z.infer<typeof markedSchema>;

/**
 * `@username` in a post or comment (DESIGN.md §13): not inside a word or an email address
 * (`bob@example.com` names nobody), ended by anything that cannot be in a username, compared
 * lower-case. The first MAX_MENTIONS distinct names, in the order they appear.
 */
export function mentionedUsernames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w@.+-])@([A-Za-z0-9_]{3,32})(?![\w@])/g)) {
    names.add(match[1]!.toLowerCase());
    if (names.size === MAX_MENTIONS) break;
  }
  return [...names];
}

/** Plain, one-line start of a text: for a notification's `excerpt`. */
export function excerptOf(text: string, max = 140): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${[...flat].slice(0, max - 1).join('')}…`;
}
