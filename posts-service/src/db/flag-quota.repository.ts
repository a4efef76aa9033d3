import type { Tx } from '@community/db';

/**
 * Records a flag in its flagger's quota unless `limit` flags were filed in the last `windowSeconds`:
 * true when it was recorded. The decision and the record are one statement on the flagger's row, so
 * a burst of flags from one account is counted one after another, never all against the same count.
 * It commits with the flag: a flag that is not filed after all takes no room.
 */
export async function takeFlagQuota(
  tx: Tx,
  flaggerId: number,
  { limit, windowSeconds }: { limit: number; windowSeconds: number },
): Promise<boolean> {
  const since = tx`now() - ${windowSeconds} * interval '1 second'`;
  const rows = await tx`
    insert into flag_quota as q (flagger_id, filed_at) values (${flaggerId}, array[now()])
    on conflict (flagger_id) do update
      set filed_at = array(select t from unnest(q.filed_at) t where t > ${since}) || now()
      where (select count(*) from unnest(q.filed_at) t where t > ${since}) < ${limit}
    returning flagger_id`;
  return rows.length > 0;
}

/** Seconds until the oldest flag of the window leaves it, and with it room for one more. */
export async function secondsUntilFlagQuota(
  tx: Tx,
  flaggerId: number,
  windowSeconds: number,
): Promise<number> {
  const [row] = await tx<{ seconds: number | null }[]>`
    select extract(epoch from min(t) + ${windowSeconds} * interval '1 second' - now())::float8 as seconds
    from flag_quota, unnest(filed_at) t
    where flagger_id = ${flaggerId} and t > now() - ${windowSeconds} * interval '1 second'`;
  return row?.seconds ?? 0;
}
