import { eventData } from '@community/contracts';
import { forgetIdempotencyKeys, type Tx } from '@community/db';
import { enqueueEvent, type EventEnvelope } from '@community/events';
import { findLiveComment } from '../db/comments.repository';
import {
  anonymiseAuthor,
  liveCommentIdsOf,
  livePostIdsOf,
  removeCommentLikesBy,
  removeOpenFlagsBy,
  removePostLikesBy,
} from '../db/erasure.repository';
import { findLivePost } from '../db/posts.repository';
import { removeComment } from './comments/change-comment';
import { removePost } from './posts/delete-post';

/**
 * `user.erased` (DESIGN.md §20): the author becomes `deleted-<id>` with the default avatar; the likes
 * it gave leave their counts (`post.unliked` moves the authors' reputation back), its open flags and
 * idempotency records go; its posts and comments stay under its id, or are deleted as any delete is
 * with `content: delete`. The moderation audit log is kept. Applying it twice changes nothing more.
 */
export async function onUserErased(tx: Tx, event: EventEnvelope): Promise<void> {
  const { id, content } = eventData['user.erased'].parse(event.data);
  await anonymiseAuthor(tx, id, new Date(event.timestamp));
  for (const post of await removePostLikesBy(tx, id))
    await enqueueEvent(tx, 'post.unliked', { post_id: post.id, user_id: id, author_id: post.authorId });
  await removeCommentLikesBy(tx, id);
  await removeOpenFlagsBy(tx, id);
  await forgetIdempotencyKeys(tx, id);
  if (content === 'delete') await deleteContentOf(tx, id);
}

/** Every live post and comment of the author, deleted one by one as a delete by its author is. */
async function deleteContentOf(tx: Tx, authorId: number): Promise<void> {
  for (const id of await liveCommentIdsOf(tx, authorId)) {
    const comment = await findLiveComment(tx, id, { forUpdate: true });
    if (comment) await removeComment(tx, comment);
  }
  for (const id of await livePostIdsOf(tx, authorId)) {
    const post = await findLivePost(tx, id, { forUpdate: true });
    if (post) await removePost(tx, post);
  }
}
