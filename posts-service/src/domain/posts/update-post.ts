import { ValidationError, type Actor, type PostDetail, type UpdatePostBody } from '@community/contracts';
import { enqueueEvent } from '@community/events';
import { addPostCount, findCategory } from '../../db/categories.repository';
import { findLivePost, updatePost as writePost, type PostChanges } from '../../db/posts.repository';
import type { PostRow } from '../../db/rows';
import { moveTagCounts } from '../../db/tags.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertCanChange, assertModerator } from '@community/access';
import { recordModeration } from '../moderation/audit';
import { toDetail } from '../representations';
import { visibleTo } from '../visibility';
import { slugify } from '../slug';
import { assertCategoryExists } from './create-post';

const CONTENT_FIELDS = ['title', 'content', 'category_id', 'tags'] as const;
const MODERATION_FIELDS = ['is_pinned', 'is_locked'] as const;
/** The audit log's name for setting and clearing each moderation field. */
const MODERATION_ACTS = [
  ['isPinned', 'pin', 'unpin'],
  ['isLocked', 'lock', 'unlock'],
] as const;

/** Partial update: content by the author or a moderator, pin/lock by moderators only. */
export async function updatePost(
  deps: TxDeps,
  actor: Actor,
  id: number,
  body: UpdatePostBody,
  base: string,
): Promise<PostDetail> {
  const given = Object.keys(body).filter((key) => body[key as keyof UpdatePostBody] !== undefined);
  if (given.length === 0) {
    throw ValidationError.single('body', 'required', 'body must contain at least one field to change');
  }
  return commitWithEvents(deps, async (tx) => {
    const post = visibleTo(actor, await findLivePost(tx, id, { forUpdate: true }), 'post');
    if (CONTENT_FIELDS.some((field) => given.includes(field))) assertCanChange(actor, post.authorId, 'post');
    if (MODERATION_FIELDS.some((field) => given.includes(field))) assertModerator(actor, 'pin or lock posts');

    const changes = diff(post, body);
    const changed = Object.keys(changes).filter((key) => key !== 'slug');
    if (changed.length === 0) return toDetail(post, base);

    // A hidden post is in no count until it is shown again (domain/moderation/hiding.ts).
    if (changes.categoryId !== undefined && !post.isHidden) {
      // Lock both categories in id order, so two opposite moves cannot deadlock.
      if (post.categoryId < changes.categoryId) await findCategory(tx, post.categoryId, { forUpdate: true });
      await assertCategoryExists(tx, changes.categoryId);
      await addPostCount(tx, changes.categoryId, 1);
      await addPostCount(tx, post.categoryId, -1);
    }
    if (changes.categoryId !== undefined && post.isHidden) await assertCategoryExists(tx, changes.categoryId);
    if (changes.tags !== undefined && !post.isHidden) await moveTagCounts(tx, post.tags, changes.tags);
    await writePost(tx, id, changes);
    const updated = (await findLivePost(tx, id))!;
    for (const [field, on, off] of MODERATION_ACTS) {
      const value = changes[field];
      if (value !== undefined)
        await recordModeration(tx, {
          actorId: actor.userId,
          action: value ? on : off,
          target: { type: 'post', id },
        });
    }
    // Hidden content publishes nothing while hidden, edits included; showing it again publishes it.
    if (!updated.isHidden)
      await enqueueEvent(tx, 'post.updated', {
        id,
        title: updated.title,
        author_id: updated.authorId,
        changed: changed.map(toWireName),
      });
    return toDetail(updated, base);
  });
}

/** Only what really differs from the stored post, so a no-op update writes and announces nothing. */
function diff(post: PostRow, body: UpdatePostBody): PostChanges {
  const changes: PostChanges = {};
  if (body.title !== undefined && body.title !== post.title) {
    changes.title = body.title;
    changes.slug = slugify(body.title);
  }
  if (body.content !== undefined && body.content !== post.content) changes.content = body.content;
  if (body.category_id !== undefined && body.category_id !== post.categoryId)
    changes.categoryId = body.category_id;
  if (body.tags !== undefined && body.tags.join('\n') !== post.tags.join('\n')) changes.tags = body.tags;
  if (body.is_pinned !== undefined && body.is_pinned !== post.isPinned) changes.isPinned = body.is_pinned;
  if (body.is_locked !== undefined && body.is_locked !== post.isLocked) changes.isLocked = body.is_locked;
  return changes;
}

const WIRE_NAMES: Record<string, string> = {
  categoryId: 'category_id',
  isPinned: 'is_pinned',
  isLocked: 'is_locked',
};
const toWireName = (key: string) => WIRE_NAMES[key] ?? key;
