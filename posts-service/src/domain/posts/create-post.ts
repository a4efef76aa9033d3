import { ValidationError, type Actor, type CreatePostBody, type PostDetail } from '@community/contracts';
import { enqueueEvent } from '@community/events';
import type { Tx } from '@community/db';
import { addPostCount, findCategory } from '../../db/categories.repository';
import { findLivePost, insertPost } from '../../db/posts.repository';
import { moveTagCounts } from '../../db/tags.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertScope } from '@community/access';
import { announceContent } from '../notification-sources';
import { toDetail } from '../representations';
import { slugify } from '../slug';

export async function assertCategoryExists(tx: Tx, categoryId: number): Promise<void> {
  // Locked so a concurrent category delete cannot slip between this check and the insert.
  if (!(await findCategory(tx, categoryId, { forUpdate: true }))) {
    throw ValidationError.single('category_id', 'not_found', `category_id ${categoryId} does not exist`);
  }
}

export async function createPost(
  deps: TxDeps,
  actor: Actor,
  body: CreatePostBody,
  base: string,
): Promise<PostDetail> {
  assertScope(actor, 'write');
  return commitWithEvents(deps, async (tx) => {
    await assertCategoryExists(tx, body.category_id);
    const id = await insertPost(tx, {
      title: body.title,
      slug: slugify(body.title),
      content: body.content,
      authorId: actor.userId,
      authorRole: actor.role,
      categoryId: body.category_id,
      tags: body.tags ?? [],
    });
    await addPostCount(tx, body.category_id, 1);
    await moveTagCounts(tx, [], body.tags ?? []);
    await enqueueEvent(tx, 'post.created', { id, title: body.title, author_id: actor.userId });
    await announceContent(tx, {
      type: 'post',
      id,
      postId: id,
      authorId: actor.userId,
      postAuthorId: actor.userId,
      parentAuthorId: null,
      title: body.title,
      text: body.content,
    });
    return toDetail((await findLivePost(tx, id))!, base);
  });
}
