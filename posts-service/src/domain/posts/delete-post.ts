import { NotFoundError, type Actor } from '@community/contracts';
import { enqueueEvent } from '@community/events';
import { addPostCount } from '../../db/categories.repository';
import { findLivePost, softDeletePost } from '../../db/posts.repository';
import { moveTagCounts } from '../../db/tags.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertCanChange } from '@community/access';

/** Soft delete: the row stays for history, and the post is a 404 everywhere from now on. */
export async function deletePost(
  deps: TxDeps,
  actor: Actor,
  id: number,
): Promise<{ id: number; deleted: true }> {
  return commitWithEvents(deps, async (tx) => {
    const post = await findLivePost(tx, id, { forUpdate: true });
    if (!post) throw new NotFoundError('post');
    assertCanChange(actor, post.authorId, 'post');
    await softDeletePost(tx, id);
    await addPostCount(tx, post.categoryId, -1);
    await moveTagCounts(tx, post.tags, []);
    await enqueueEvent(tx, 'post.deleted', { id, author_id: post.authorId });
    return { id, deleted: true as const };
  });
}
