import { eventData } from '@community/contracts';
import type { Tx } from '@community/db';
import type { EventEnvelope, EventHandler } from '@community/events';
import { awardBadges, bumpCounter, recordLikeEverReceived, type Counter } from '../db/stats.repository';
import { notifyBadges, notifyLike } from './notifications/sources';

type AuthorEvent = 'post.created' | 'post.deleted' | 'comment.created' | 'comment.deleted';

/** Awards what the author has now earned, and tells them (DESIGN.md §13). */
async function award(tx: Tx, userId: number): Promise<void> {
  await notifyBadges(tx, userId, await awardBadges(tx, userId));
}

/** One counter of the content's author per event; the events lib applies each event id once. */
function authorCounter(event: AuthorEvent, counter: Counter, delta: 1 | -1): EventHandler {
  return async (tx: Tx, envelope: EventEnvelope) => {
    const { author_id } = eventData[event].parse(envelope.data);
    await bumpCounter(tx, author_id, counter, delta);
    if (delta > 0) await award(tx, author_id);
  };
}

function likeCounter(event: 'post.liked' | 'post.unliked', delta: 1 | -1): EventHandler {
  return async (tx: Tx, envelope: EventEnvelope) => {
    const { post_id, user_id, author_id, title } = eventData[event].parse(envelope.data);
    await bumpCounter(tx, author_id, 'likes_received', delta);
    if (delta > 0) {
      if (await recordLikeEverReceived(tx, post_id, user_id, author_id))
        await notifyLike(tx, {
          postId: post_id,
          likerId: user_id,
          authorId: author_id,
          title: title ?? null,
        });
      await award(tx, author_id);
    }
  };
}

/** Content events from posts-service that move stats, reputation and badges. */
export const statsHandlers: Record<string, EventHandler> = {
  'post.created': authorCounter('post.created', 'posts_count', 1),
  'post.deleted': authorCounter('post.deleted', 'posts_count', -1),
  'comment.created': authorCounter('comment.created', 'comments_count', 1),
  'comment.deleted': authorCounter('comment.deleted', 'comments_count', -1),
  'post.liked': likeCounter('post.liked', 1),
  'post.unliked': likeCounter('post.unliked', -1),
};
