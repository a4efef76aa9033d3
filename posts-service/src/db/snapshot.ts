/**
 * Whether the transaction `xid` had committed for a read whose snapshot is `snapshot`, the text of
 * PostgreSQL's `pg_current_snapshot()` ("xmin:xmax:xip,…"): what `pg_visible_in_snapshot` says,
 * asked after the read, when the transaction's id is known. Only for a transaction that commits or
 * aborts (an aborted one's rows are never seen, whatever this says).
 */
export function visibleIn(xid: bigint, snapshot: string): boolean {
  const [xmin = '0', xmax = '0', running = ''] = snapshot.split(':');
  if (xid < BigInt(xmin)) return true;
  if (xid >= BigInt(xmax)) return false;
  return !running.split(',').some((id) => id !== '' && BigInt(id) === xid);
}
