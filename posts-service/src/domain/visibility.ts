import { NotFoundError, type Actor } from '@community/contracts';

/*
 * Who sees a hidden post or comment (DESIGN.md §12): its author, moderators and admins; for everyone
 * else it does not exist. Lists, counts and search leave hidden items out for everybody
 * (db/posts.repository.ts `whereLive`, db/comments.repository.ts `whereVisible`).
 */

/** Whether `actor` may see hidden content by its role. */
export const seesHidden = (actor: Actor) => actor.role !== 'member';

/** Whether `actor` may see this item, hidden or not. */
export const canSee = (actor: Actor, item: { authorId: number; isHidden: boolean }) =>
  !item.isHidden || item.authorId === actor.userId || seesHidden(actor);

/** The item when `actor` may see it; a 404 when it is missing or hidden from them. */
export function visibleTo<T extends { authorId: number; isHidden: boolean }>(
  actor: Actor,
  item: T | null,
  what: 'post' | 'comment',
): T {
  if (!item || !canSee(actor, item)) throw new NotFoundError(what);
  return item;
}

/** A comment when `actor` may see both it and its post. */
export function visibleComment<
  T extends { authorId: number; isHidden: boolean; postHidden: boolean; postAuthorId: number },
>(actor: Actor, comment: T | null): T {
  if (comment?.postHidden) visibleTo(actor, { authorId: comment.postAuthorId, isHidden: true }, 'comment');
  return visibleTo(actor, comment, 'comment');
}
