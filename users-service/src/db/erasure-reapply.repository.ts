import type { Sql, Tx } from '@community/db';

export interface ErasureToReapply {
  userId: number;
  content: 'keep' | 'delete';
}

/** The user ids `npm run restore` left to erase again, oldest erasure first. */
export async function erasuresToReapply(sql: Sql): Promise<number[]> {
  const rows = await sql<
    { userId: number }[]
  >`select user_id from erasures_to_reapply order by erased_at, user_id`;
  return rows.map((row) => row.userId);
}

/**
 * Takes one erasure to re-apply off the list, in the transaction that re-applies it: null when another
 * process took it first (the row lock makes it wait, then it finds the row gone).
 */
export async function takeErasureToReapply(tx: Tx, userId: number): Promise<ErasureToReapply | null> {
  const [row] = await tx<ErasureToReapply[]>`
    delete from erasures_to_reapply where user_id = ${userId} returning user_id, content`;
  return row ?? null;
}
