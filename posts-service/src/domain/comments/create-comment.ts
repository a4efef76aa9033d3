import {
  PostLockedError,
  ValidationError,
  type Actor,
  type Comment,
  type CreateCommentBody,
} from '@community/contracts';
import { enqueueEvent } from '@community/events';
import { findLiveComment, insertComment } from '../../db/comments.repository';
import { addReplies, findLivePost } from '../../db/posts.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertScope } from '@community/access';
import { toComment } from '../representations';
import { announceContent } from '../notification-sources';
import { canSee, visibleTo } from '../visibility';

/** A reply's parent must be a live comment on the same post; a locked post takes no comments at all. */
export async function createComment(
  deps: TxDeps,
  actor: Actor,
  postId: number,
  body: CreateCommentBody,
  base: string,
): Promise<Comment> {
  assertScope(actor, 'write');
  return commitWithEvents(deps, async (tx) => {
    const post = visibleTo(actor, await findLivePost(tx, postId), 'post');
    if (post.isLocked) throw new PostLockedError();
    const parentId = body.parent_id ?? null;
    let parentAuthorId: number | null = null;
    if (parentId !== null) {
      const parent = await findLiveComment(tx, parentId);
      // A hidden parent is no parent for those who cannot see it.
      if (!parent || parent.postId !== postId || (parent.isHidden && !canSee(actor, parent))) {
        throw ValidationError.single(
          'parent_id',
          'not_found',
          `parent_id ${parentId} is not a comment on this post`,
        );
      }
      parentAuthorId = parent.authorId;
    }
    const id = await insertComment(tx, {
      postId,
      parentId,
      authorId: actor.userId,
      authorRole: actor.role,
      content: body.content,
    });
    await enqueueEvent(tx, 'comment.created', {
      id,
      post_id: postId,
      author_id: actor.userId,
      parent_id: parentId,
    });
    await announceContent(tx, {
      type: 'comment',
      id,
      postId,
      authorId: actor.userId,
      postAuthorId: post.authorId,
      parentAuthorId,
      title: post.title,
      text: body.content,
    });
    const created = toComment((await findLiveComment(tx, id))!, base);
    // Last: the post's row stays locked from here to the commit, and every comment on it waits.
    await addReplies(tx, postId, 1);
    return created;
  });
}
