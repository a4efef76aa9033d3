import type { Actor, LikeResult } from '@community/contracts';
import { enqueueEvent } from '@community/events';
import { deleteLike, findLivePost, insertLike, likeCount } from '../../db/posts.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertScope } from '@community/access';
import { visibleTo } from '../visibility';

/** Idempotent: liking twice is one like; unliking what was never liked is a no-op. */
export async function setPostLike(
  deps: TxDeps,
  actor: Actor,
  postId: number,
  liked: boolean,
): Promise<LikeResult> {
  assertScope(actor, 'write');
  return commitWithEvents(deps, async (tx) => {
    const post = visibleTo(actor, await findLivePost(tx, postId), 'post');
    const changed = liked
      ? await insertLike(tx, postId, actor.userId)
      : await deleteLike(tx, postId, actor.userId);
    if (changed) {
      await enqueueEvent(tx, liked ? 'post.liked' : 'post.unliked', {
        post_id: postId,
        user_id: actor.userId,
        author_id: post.authorId,
        title: post.title,
      });
    }
    return { post_id: postId, liked, likes: await likeCount(tx, postId) };
  });
}
