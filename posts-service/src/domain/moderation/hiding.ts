import type { Tx } from '@community/db';
import { enqueueEvent } from '@community/events';
import { addPostCount } from '../../db/categories.repository';
import { findLiveComment, setCommentHidden } from '../../db/comments.repository';
import type { Target } from '../../db/flags.repository';
import { addReplies, findLivePost, setPostHidden } from '../../db/posts.repository';
import type { CommentRow, PostRow } from '../../db/rows';
import { moveTagCounts } from '../../db/tags.repository';

/** A flagged post or comment as stored, its row locked for the change at hand. */
export type Item =
  | { type: 'post'; row: PostRow }
  | { type: 'comment'; row: CommentRow & { postHidden: boolean; postAuthorId: number } };

/** The live post or comment a flag names, locked for update; null when it is gone. */
export async function lockItem(tx: Tx, target: Target): Promise<Item | null> {
  if (target.type === 'post') {
    const row = await findLivePost(tx, target.id, { forUpdate: true });
    return row && { type: 'post', row };
  }
  const row = await findLiveComment(tx, target.id, { forUpdate: true });
  return row && { type: 'comment', row };
}

/**
 * Hides or shows an item; true when this changed it. A hidden item leaves the counts it was in —
 * its category's `post_count` and its tags' counts, or its post's `replies` — and comes back into
 * them when shown again (DESIGN.md §12). Hiding publishes nothing, and nothing is published while
 * hidden; showing a post again publishes `post.updated` with its current title, so a receiver
 * rebuilding from the events log (where the hide redacted it) ends right (DESIGN.md §20).
 */
export async function setHidden(tx: Tx, item: Item, hidden: boolean): Promise<boolean> {
  const delta = hidden ? -1 : 1;
  if (item.type === 'post') {
    const { id, categoryId, tags } = item.row;
    if (!(await setPostHidden(tx, id, hidden))) return false;
    await addPostCount(tx, categoryId, delta);
    await (hidden ? moveTagCounts(tx, tags, []) : moveTagCounts(tx, [], tags));
    if (!hidden) await publishShown(tx, item.row);
    return true;
  }
  if (!(await setCommentHidden(tx, item.row.id, hidden))) return false;
  await addReplies(tx, item.row.postId, delta);
  return true;
}

/** The post as it is now (its row locked), once shown again: its edits while hidden were never published. */
async function publishShown(tx: Tx, post: PostRow): Promise<void> {
  await enqueueEvent(tx, 'post.updated', {
    id: post.id,
    title: post.title,
    author_id: post.authorId,
    changed: [],
  });
}
