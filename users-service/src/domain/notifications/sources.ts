import { eventData } from '@community/contracts';
import type { Tx } from '@community/db';
import type { EventEnvelope, EventHandler } from '@community/events';
import {
  deleteForSubject,
  foldLike,
  insertNotifications,
  usersNamed,
  type NewNotification,
} from '../../db/notifications.repository';
import { announce } from './announce';
import { mentionsWithinCap } from './mention-cap';

/**
 * A new post or comment (DESIGN.md §13): `reply` to the post's author and to the author of the
 * comment it answers, `mention` to each `@username` it names — one notification per person, a reply
 * before a mention — never to its own author, and a mention only while its author is under the daily
 * cap for that recipient (DESIGN.md §21).
 */
const onContentCreated: EventHandler = async (tx: Tx, event: EventEnvelope) => {
  const content = eventData['content.created'].parse(event.data);
  const subject = {
    actorId: content.author_id,
    subjectType: content.type,
    subjectId: content.id,
    postId: content.post_id,
    title: content.title,
    excerpt: content.excerpt,
  };
  const replyTo =
    content.type === 'comment'
      ? [content.post_author_id, content.parent_author_id ?? content.post_author_id]
      : [];
  const mentioned = await mentionedOnly(tx, content.mentions, [content.author_id, ...replyTo]);
  const notified = await mentionsWithinCap(tx, content.author_id, mentioned);
  const rows: NewNotification[] = [
    ...replyTo.map((recipientId) => ({ ...subject, recipientId, kind: 'reply' as const })),
    ...notified.map((recipientId) => ({ ...subject, recipientId, kind: 'mention' as const })),
  ];
  await announce(tx, await insertNotifications(tx, rows));
};

/** The members named who would be told of the mention: not its author, not those told of a reply. */
async function mentionedOnly(tx: Tx, usernames: string[], toldOtherwise: number[]): Promise<number[]> {
  const ids = (await usersNamed(tx, usernames)).map(({ id }) => id);
  return ids.filter((id) => !toldOtherwise.includes(id));
}

/**
 * A like, the first by this member on this post (liking again after an unlike tells nobody twice):
 * folded into the author's unread like notification of the post.
 */
export async function notifyLike(
  tx: Tx,
  like: { postId: number; likerId: number; authorId: number; title: string | null },
): Promise<void> {
  if (like.likerId === like.authorId) return;
  const id = await foldLike(tx, {
    recipientId: like.authorId,
    likerId: like.likerId,
    postId: like.postId,
    title: like.title,
  });
  if (id !== null) await announce(tx, [id]);
}

/** Badges just awarded: one notification each, with no actor. */
export async function notifyBadges(tx: Tx, userId: number, badges: { id: number; name: string }[]) {
  const rows = badges.map((badge): NewNotification => ({
    recipientId: userId,
    kind: 'badge',
    actorId: null,
    subjectType: 'badge',
    subjectId: badge.id,
    postId: null,
    title: badge.name,
    excerpt: null,
  }));
  // One insert per badge: insertNotifications keeps one row per recipient.
  for (const row of rows) await announce(tx, await insertNotifications(tx, [row]));
}

/** A deleted or hidden post or comment takes its notifications with it. */
const onGone =
  (event: 'post.deleted' | 'comment.deleted'): EventHandler =>
  async (tx, envelope) => {
    const { id } = eventData[event].parse(envelope.data);
    await deleteForSubject(tx, { type: event === 'post.deleted' ? 'post' : 'comment', id });
  };

const onModeration: EventHandler = async (tx, envelope) => {
  const act = eventData['moderation.action'].parse(envelope.data);
  if (act.action === 'hide' && act.target_type !== 'user')
    await deleteForSubject(tx, { type: act.target_type, id: act.target_id });
};

/** The events that make or remove notifications (likes and badges come through the stats handlers). */
export const notificationHandlers: Record<string, EventHandler> = {
  'content.created': onContentCreated,
  'post.deleted': onGone('post.deleted'),
  'comment.deleted': onGone('comment.deleted'),
  'moderation.action': onModeration,
};
