import type { Tx } from '@community/db';

export type Counter = 'posts_count' | 'comments_count' | 'likes_received';

const LIFETIME: Partial<Record<Counter, string>> = {
  posts_count: 'posts_created',
  comments_count: 'comments_created',
};

/**
 * Moves one counter by ±1 (the reputation column follows by itself). No clamping here: clamping an
 * early "minus" would lose it for good when events arrive out of order. An increment of posts or
 * comments also grows the lifetime total the badges are judged on.
 */
export async function bumpCounter(tx: Tx, userId: number, counter: Counter, delta: 1 | -1): Promise<void> {
  const lifetime = LIFETIME[counter];
  if (lifetime && delta > 0) {
    await tx`update users set ${tx(counter)} = ${tx(counter)} + 1, ${tx(lifetime)} = ${tx(lifetime)} + 1 where id = ${userId}`;
  } else {
    await tx`update users set ${tx(counter)} = ${tx(counter)} + ${delta} where id = ${userId}`;
  }
}

/**
 * Counts a like towards the badges once per (post, liker), whatever unlikes came between. True the
 * first time.
 */
export async function recordLikeEverReceived(
  tx: Tx,
  postId: number,
  likerId: number,
  authorId: number,
): Promise<boolean> {
  const inserted = await tx`
    insert into received_likes (post_id, liker_id, author_id) values (${postId}, ${likerId}, ${authorId})
    on conflict do nothing returning post_id`;
  if (inserted.length === 0) return false;
  await tx`update users set likes_ever_received = likes_ever_received + 1 where id = ${authorId}`;
  return true;
}

/**
 * Awards the badges whose rule now holds, judged on lifetime totals (events arrive in any order, so
 * a live count may never show the moment it crossed the line). Awarded once, never taken back.
 * Returns the badges awarded now.
 */
export async function awardBadges(tx: Tx, userId: number): Promise<{ id: number; name: string }[]> {
  return tx<{ id: number; name: string }[]>`
    with awarded as (
      insert into user_badges (user_id, badge_id)
      select u.id, b.id from users u
      join badges b on (b.id = 1 and u.posts_created >= 1)
                    or (b.id = 2 and u.comments_created >= 10)
                    or (b.id = 3 and u.likes_ever_received >= 10)
                    or (b.id = 4 and u.likes_ever_received >= 100)
      where u.id = ${userId}
      on conflict do nothing
      returning badge_id)
    select b.id, b.name from awarded a join badges b on b.id = a.badge_id order by b.id`;
}
