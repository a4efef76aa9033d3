import { assertScope } from '@community/access';
import {
  STREAM_REPLAY_LIMIT,
  type Actor,
  type ListNotificationsQuery,
  type Marked,
  type MarkReadBody,
  type Notification,
  type UnreadCount,
} from '@community/contracts';
import type { Sql } from '@community/db';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import {
  countUnread,
  listNotifications,
  markRead,
  notificationsBefore,
  notificationsSince,
} from '../../db/notifications.repository';
import { toNotification } from './announce';

/** Your notifications, newest first, by page (DESIGN.md §13). */
export async function readNotifications(
  sql: Sql,
  actor: Actor,
  { unread, page, limit }: ListNotificationsQuery,
): Promise<Page<Notification>> {
  assertScope(actor, 'read');
  const { rows, total } = await listNotifications(sql, actor.userId, {
    unread,
    limit,
    offset: (page - 1) * limit,
  });
  return { items: rows.map(toNotification), totalItems: total, page, limit };
}

/** Your notifications older than `beforeId` (a cursor walk). */
export async function notificationsAfter(
  sql: Sql,
  actor: Actor,
  { unread, limit }: ListNotificationsQuery,
  beforeId: number,
): Promise<Slice<Notification>> {
  assertScope(actor, 'read');
  const rows = await notificationsBefore(sql, actor.userId, { unread, beforeId, limit: limit + 1 });
  return sliceOf(rows.map(toNotification), limit);
}

export async function unreadCount(sql: Sql, actor: Actor): Promise<UnreadCount> {
  assertScope(actor, 'read');
  return { unread: await countUnread(sql, actor.userId) };
}

/** Marks your own notifications read: ids of others' are simply not yours to mark (not counted). */
export async function markNotificationsRead(sql: Sql, actor: Actor, body: MarkReadBody): Promise<Marked> {
  assertScope(actor, 'write');
  return { marked: await markRead(sql, actor.userId, 'ids' in body ? body.ids : 'all') };
}

/** Whose stream this caller may open: their own, with `read`. */
export function streamRecipient(actor: Actor): number {
  assertScope(actor, 'read');
  return actor.userId;
}

/** What a stream reconnecting with `Last-Event-ID` missed: up to STREAM_REPLAY_LIMIT, oldest first. */
export async function missedNotifications(
  sql: Sql,
  actor: Actor,
  lastEventId: number,
): Promise<Notification[]> {
  assertScope(actor, 'read');
  return (await notificationsSince(sql, actor.userId, lastEventId, STREAM_REPLAY_LIMIT)).map(toNotification);
}
