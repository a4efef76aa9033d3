import type { Tx } from '@community/db';

/**
 * The author becomes `deleted-<id>` with the default avatar, whatever the replica held: no profile
 * event can come after an erasure, and one that arrives late is older than this and changes nothing.
 */
export async function anonymiseAuthor(tx: Tx, id: number, at: Date): Promise<void> {
  const name = `deleted-${id}`;
  await tx`
    insert into authors (id, username, display_name, avatar, source_timestamp)
    values (${id}, ${name}, ${name}, null, ${at})
    on conflict (id) do update set username = excluded.username, display_name = excluded.display_name,
      avatar = null, source_timestamp = greatest(authors.source_timestamp, excluded.source_timestamp),
      updated_at = now()`;
}

/** A like taken back from a post: whose post it was, for its author's reputation. */
export interface UnlikedPost {
  id: number;
  authorId: number;
  title: string;
}

/** Removes every like the account gave to posts, their counts following; answers the posts. */
export async function removePostLikesBy(tx: Tx, userId: number): Promise<UnlikedPost[]> {
  return tx<UnlikedPost[]>`
    with gone as (delete from post_likes where user_id = ${userId} returning post_id)
    update posts p set likes = p.likes - 1 from gone where p.id = gone.post_id
    returning p.id, p.author_id, p.title`;
}

/** Removes every like the account gave to comments, their counts following. */
export async function removeCommentLikesBy(tx: Tx, userId: number): Promise<void> {
  await tx`
    with gone as (delete from comment_likes where user_id = ${userId} returning comment_id)
    update comments c set likes = c.likes - 1 from gone where c.id = gone.comment_id`;
}

/** The account's open flags go; decided ones stay with their target (DESIGN.md §20). */
export async function removeOpenFlagsBy(tx: Tx, userId: number): Promise<void> {
  await tx`delete from flags where flagger_id = ${userId} and status = 'open'`;
  await tx`delete from flag_quota where flagger_id = ${userId}`;
}

export async function livePostIdsOf(tx: Tx, authorId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select id from posts where author_id = ${authorId} and deleted_at is null order by id`;
  return rows.map((row) => row.id);
}

export async function liveCommentIdsOf(tx: Tx, authorId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select id from comments where author_id = ${authorId} and deleted_at is null order by id`;
  return rows.map((row) => row.id);
}
