import { NotFoundError, type Actor, type Comment, type UpdateCommentBody } from '@community/contracts';
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
import { toComment } from '../representations';

export async function updateComment(
  deps: TxDeps,
  actor: Actor,
  id: number,
  body: UpdateCommentBody,
  base: string,
): Promise<Comment> {
  return commitWithEvents(deps, async (tx) => {
    const comment = await findLiveComment(tx, id);
    if (!comment) throw new NotFoundError('comment');
    assertCanChange(actor, comment.authorId, 'comment');
    if (body.content === comment.content) return toComment(comment, base);
    await updateCommentContent(tx, id, body.content);
    return toComment((await findLiveComment(tx, id))!, base);
  });
}

/** Soft delete; replies to it stay, still naming it as their parent. */
export async function deleteComment(
  deps: TxDeps,
  actor: Actor,
  id: number,
): Promise<{ id: number; deleted: true }> {
  return commitWithEvents(deps, async (tx) => {
    const comment = await findLiveComment(tx, id);
    if (!comment) throw new NotFoundError('comment');
    assertCanChange(actor, comment.authorId, 'comment');
    if (!(await softDeleteComment(tx, id))) throw new NotFoundError('comment');
    await addReplies(tx, comment.postId, -1);
    await enqueueEvent(tx, 'comment.deleted', { id, post_id: comment.postId, author_id: comment.authorId });
    return { id, deleted: true as const };
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
    if (!(await findLiveComment(tx, id))) throw new NotFoundError('comment');
    if (liked) await insertCommentLike(tx, id, actor.userId);
    else await deleteCommentLike(tx, id, actor.userId);
    const comment = (await findLiveComment(tx, id))!;
    return { comment_id: id, liked, likes: comment.likes };
  });
}
