import { deleted, type Actor, type Deleted } from '@community/contracts';
import type { Tx } from '@community/db';
import { commitWithEvents, enqueueEvent, type TxDeps } from '@community/events';
import { assertCanChange } from '@community/access';
import { addPostCount } from '../../db/categories.repository';
import { findLivePost, softDeletePost } from '../../db/posts.repository';
import type { PostRow } from '../../db/rows';
import { moveTagCounts } from '../../db/tags.repository';
import { recordDeleteByModerator } from '../moderation/audit';
import { visibleTo } from '../visibility';

/** Soft delete: the row stays for history, and the post is a 404 everywhere from now on. */
export async function deletePost(deps: TxDeps, actor: Actor, id: number): Promise<Deleted> {
  return commitWithEvents(deps, async (tx) => {
    const post = visibleTo(actor, await findLivePost(tx, id, { forUpdate: true }), 'post');
    assertCanChange(actor, post.authorId, 'post');
    await removePost(tx, post);
    await recordDeleteByModerator(tx, actor, post.authorId, { type: 'post', id });
    return deleted(id);
  });
}

/**
 * Deletes a live post locked for update, as any delete does: out of the counts it is still in (a
 * hidden post left them when it was hidden), and `post.deleted` announced.
 */
export async function removePost(tx: Tx, post: PostRow): Promise<void> {
  await softDeletePost(tx, post.id);
  if (!post.isHidden) {
    await addPostCount(tx, post.categoryId, -1);
    await moveTagCounts(tx, post.tags, []);
  }
  await enqueueEvent(tx, 'post.deleted', { id: post.id, author_id: post.authorId });
}
