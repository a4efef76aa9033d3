import { toTimestamp, type Notification } from '@community/contracts';
import type { Tx } from '@community/db';
import { enqueueEvent } from '@community/events';
import { findItems, type NotificationRow } from '../../db/notifications.repository';

/**
 * Puts new notifications on the bus, in the transaction that stored them, as `notification.created`:
 * every users-service replica hears it and pushes it to the recipient's streams it holds.
 */
export async function announce(tx: Tx, ids: number[]): Promise<void> {
  for (const row of (await findItems(tx, ids)).reverse())
    await enqueueEvent(tx, 'notification.created', {
      recipient_id: row.recipientId,
      notification: toNotification(row),
    });
}

export function toNotification(row: NotificationRow): Notification {
  const actor =
    row.actorId !== null && row.actorUsername !== null
      ? { id: row.actorId, username: row.actorUsername, display_name: row.actorDisplayName! }
      : null;
  const item: Notification = {
    id: row.id,
    kind: row.kind,
    read: row.read,
    created_at: toTimestamp(row.createdAt),
    actor,
    subject: subjectOf(row),
  };
  if (row.kind === 'like') {
    item.actors = (row.likerIds ?? []).map((id, i) => ({
      id,
      username: row.likerUsernames![i]!,
      display_name: row.likerDisplayNames![i]!,
    }));
    item.count = row.count;
  }
  return item;
}

function subjectOf(row: NotificationRow): Notification['subject'] {
  const subject: Notification['subject'] = { type: row.subjectType, id: row.subjectId };
  if (row.subjectType === 'comment' && row.postId !== null) subject.post_id = row.postId;
  if (row.title !== null) subject.title = row.title;
  if (row.excerpt !== null) subject.excerpt = row.excerpt;
  return subject;
}
