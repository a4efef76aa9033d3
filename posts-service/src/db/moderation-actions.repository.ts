import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface ModerationActionRow {
  id: number;
  actorId: number | null;
  action: string;
  targetType: string;
  targetId: number;
  reason: string | null;
  createdAt: Date;
}

/** Appends one act to the audit log; an event stored before is stored once. */
export async function appendAction(
  tx: Tx,
  eventId: string,
  act: {
    actorId: number | null;
    action: string;
    targetType: string;
    targetId: number;
    reason: string | null;
    at: string;
  },
): Promise<void> {
  await tx`
    insert into moderation_actions (event_id, actor_id, action, target_type, target_id, reason, created_at)
    values (${eventId}, ${act.actorId}, ${act.action}, ${act.targetType}, ${act.targetId}, ${act.reason}, ${act.at})
    on conflict (event_id) do nothing`;
}

const SELECT_ACTION = (db: Db) => db`
  select id::int, actor_id, action, target_type, target_id, reason, created_at from moderation_actions`;

/**
 * The audit log, newest first. Event ids are ULIDs, in the order their acts were made (milliseconds,
 * then made in order by one process), where the wire timestamps have only seconds.
 */
export async function listActions(
  db: Db,
  limit: number,
  offset: number,
): Promise<{ rows: ModerationActionRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db<ModerationActionRow[]>`
      ${SELECT_ACTION(db)} order by event_id desc limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from moderation_actions`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/** The acts logged before the act `afterId`, newest first: a keyset read. */
export async function actionsAfter(db: Db, afterId: number, limit: number): Promise<ModerationActionRow[]> {
  return db<ModerationActionRow[]>`
    ${SELECT_ACTION(db)}
    where event_id < (select event_id from moderation_actions where id = ${afterId})
    order by event_id desc limit ${limit}`;
}
