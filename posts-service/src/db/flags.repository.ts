import type { FlagTarget } from '@community/contracts';
import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

const UNIQUE_VIOLATION = '23505';

export interface FlagRow {
  id: number;
  targetType: FlagTarget;
  targetId: number;
  flaggerId: number;
  reason: string;
  note: string | null;
  status: 'open' | 'resolved' | 'dismissed';
  createdAt: Date;
}

export interface Target {
  type: FlagTarget;
  id: number;
}

const SELECT_FLAG = (db: Db) => db`
  select id, target_type, target_id, flagger_id, reason, note, status, created_at from flags`;

/** A new open flag; null when this member already holds an open flag on the target. */
export async function insertFlag(
  tx: Tx,
  flag: { target: Target; flaggerId: number; reason: string; note: string | null; countsToHide: boolean },
): Promise<FlagRow | null> {
  try {
    const [row] = await tx<FlagRow[]>`
      insert into flags (target_type, target_id, flagger_id, reason, note, counts_to_hide)
      values (${flag.target.type}, ${flag.target.id}, ${flag.flaggerId}, ${flag.reason}, ${flag.note},
              ${flag.countsToHide})
      returning id, target_type, target_id, flagger_id, reason, note, status, created_at`;
    return row!;
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw err;
  }
}

/** The reasons of the open flags on a target that count towards hiding it, one per member. */
export async function countingFlagReasons(tx: Tx, target: Target): Promise<string[]> {
  const rows = await tx<{ reason: string }[]>`
    select reason from flags
    where target_type = ${target.type} and target_id = ${target.id} and status = 'open' and counts_to_hide
    order by id`;
  return rows.map((row) => row.reason);
}

/** The role the target's author wrote it with; null when it was written before roles were recorded. */
export async function authorRoleOf(tx: Tx, target: Target): Promise<string | null> {
  const [row] =
    target.type === 'post'
      ? await tx<{ authorRole: string | null }[]>`select author_role from posts where id = ${target.id}`
      : await tx<{ authorRole: string | null }[]>`select author_role from comments where id = ${target.id}`;
  return row?.authorRole ?? null;
}

export async function findFlag(
  db: Db,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<FlagRow | null> {
  const [row] = await db<FlagRow[]>`
    ${SELECT_FLAG(db)} where id = ${id} ${opts.forUpdate ? db`for update` : db``}`;
  return row ?? null;
}

/** Closes every open flag on the target with the moderator's decision. */
export async function closeOpenFlags(
  tx: Tx,
  target: Target,
  status: 'resolved' | 'dismissed',
  moderatorId: number,
): Promise<void> {
  await tx`
    update flags set status = ${status}, decided_at = now(), decided_by = ${moderatorId}
    where target_type = ${target.type} and target_id = ${target.id} and status = 'open'`;
}

/** The queue: flags in a status, oldest first. */
export async function listFlags(
  db: Db,
  filter: { status: string; targetType?: FlagTarget },
  limit: number,
  offset: number,
): Promise<{ rows: FlagRow[]; total: number }> {
  const where = db`status = ${filter.status}
    ${filter.targetType !== undefined ? db`and target_type = ${filter.targetType}` : db``}`;
  const [rows, [count]] = await Promise.all([
    db<FlagRow[]>`${SELECT_FLAG(db)} where ${where} order by created_at, id limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from flags where ${where}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}
