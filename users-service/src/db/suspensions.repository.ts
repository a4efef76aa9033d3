import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface SuspensionRow {
  userId: number;
  until: Date | null;
  reason: string;
  createdAt: Date;
}

/** Active: without an end, or ending later than now. */
const ACTIVE = (db: Db) => db`(s.until is null or s.until > now())`;

/** Suspends the user, replacing any suspension they had. */
export async function putSuspension(
  tx: Tx,
  suspension: { userId: number; until: Date | null; reason: string; createdBy: number },
): Promise<SuspensionRow> {
  const [row] = await tx<SuspensionRow[]>`
    insert into suspensions as s (user_id, until, reason, created_by)
    values (${suspension.userId}, ${suspension.until}, ${suspension.reason}, ${suspension.createdBy})
    on conflict (user_id) do update
      set until = excluded.until, reason = excluded.reason, created_by = excluded.created_by, created_at = now()
    returning s.user_id, s.until, s.reason, s.created_at`;
  return row!;
}

/** Lifts the user's active suspension; false when there was none. */
export async function deleteActiveSuspension(tx: Tx, userId: number): Promise<boolean> {
  const rows =
    await tx`delete from suspensions s where s.user_id = ${userId} and ${ACTIVE(tx)} returning s.user_id`;
  return rows.length > 0;
}

export async function findActiveSuspension(db: Db, userId: number): Promise<SuspensionRow | null> {
  const [row] = await db<SuspensionRow[]>`
    select s.user_id, s.until, s.reason, s.created_at from suspensions s
    where s.user_id = ${userId} and ${ACTIVE(db)}`;
  return row ?? null;
}
