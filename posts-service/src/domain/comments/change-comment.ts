import {
  deleted,
  NotFoundError,
  type Actor,
  type Comment,
  type Deleted,
  type UpdateCommentBody,
} from '@community/contracts';
import { enqueueEvent } from '@community/events';
import {
  deleteCommentLike,
  findLiveComment,
  insertCommentLike,
  softDeleteComment,
  updateCommentContent,
} from '../../db/comments.repository';
import { addReplies } from '../../db/posts.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertCanChange, assertScope } from '@community/access';
import type { Tx } from '@community/db';
import type { CommentRow } from '../../db/rows';
import { recordDeleteByModerator } from '../moderation/audit';
import { toComment } from '../representations';
import { visibleComment } from '../visibility';

export async function updateComment(
  deps: TxDeps,
  actor: Actor,
  id: number,
  body: UpdateCommentBody,
  base: string,
): Promise<Comment> {
  return commitWithEvents(deps, async (tx) => {
    const comment = visibleComment(actor, await findLiveComment(tx, id));
    assertCanChange(actor, comment.authorId, 'comment');
    if (body.content === comment.content) return toComment(comment, base);
    await updateCommentContent(tx, id, body.content);
    return toComment((await findLiveComment(tx, id))!, base);
  });
}

/** Soft delete; replies to it stay, still naming it as their parent. */
export async function deleteComment(deps: TxDeps, actor: Actor, id: number): Promise<Deleted> {
  return commitWithEvents(deps, async (tx) => {
    const comment = visibleComment(actor, await findLiveComment(tx, id, { forUpdate: true }));
    assertCanChange(actor, comment.authorId, 'comment');
    await removeComment(tx, comment);
    await recordDeleteByModerator(tx, actor, comment.authorId, { type: 'comment', id });
    return deleted(id);
  });
}

/**
 * Deletes a live comment locked for update, as any delete does: out of its post's replies unless it
 * left them when it was hidden, and `comment.deleted` announced.
 */
export async function removeComment(tx: Tx, comment: CommentRow): Promise<void> {
  if (!(await softDeleteComment(tx, comment.id))) throw new NotFoundError('comment');
  if (!comment.isHidden) await addReplies(tx, comment.postId, -1);
  await enqueueEvent(tx, 'comment.deleted', {
    id: comment.id,
    post_id: comment.postId,
    author_id: comment.authorId,
  });
}

export async function setCommentLike(
  deps: TxDeps,
  actor: Actor,
  id: number,
  liked: boolean,
): Promise<{ comment_id: number; liked: boolean; likes: number }> {
  assertScope(actor, 'write');
  return commitWithEvents(deps, async (tx) => {
    visibleComment(actor, await findLiveComment(tx, id));
    if (liked) await insertCommentLike(tx, id, actor.userId);
    else await deleteCommentLike(tx, id, actor.userId);
    const comment = (await findLiveComment(tx, id))!;
    return { comment_id: id, liked, likes: comment.likes };
  });
}
