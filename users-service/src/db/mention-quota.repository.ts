import type { Sql, Tx } from '@community/db';

const TODAY_UTC = (db: Sql | Tx) => db`(now() at time zone 'utc')::date`;

/**
 * Counts one more mention notification from `actorId` today (UTC) for each recipient still under
 * `max`, and returns those recipients. One statement: a parallel transaction counting the same row
 * waits for this one's lock and then sees its count, so none pass on the same number; rows are taken
 * in recipient order, so two never wait on each other crosswise.
 */
export async function countMentions(
  tx: Tx,
  mention: { actorId: number; recipientIds: number[]; max: number },
): Promise<number[]> {
  const ids = [...new Set(mention.recipientIds)].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  const rows = await tx<{ recipientId: number }[]>`
    insert into mention_quota as q (actor_id, recipient_id, day, notified)
    select ${mention.actorId}, r.id, ${TODAY_UTC(tx)}, 1 from unnest(${ids}::int[]) as r (id) order by r.id
    on conflict (actor_id, recipient_id, day) do update set notified = q.notified + 1
      where q.notified < ${mention.max}
    returning q.recipient_id`;
  return rows.map((row) => row.recipientId);
}

/** Forgets the days before today (UTC): they no longer hold anyone back. */
export async function pruneMentionQuota(db: Sql | Tx): Promise<void> {
  await db`delete from mention_quota where day < ${TODAY_UTC(db)}`;
}
