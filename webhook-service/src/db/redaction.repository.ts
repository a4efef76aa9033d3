import type { Tx } from '@community/db';

/** A stored public event, locked for its redaction. */
export interface StoredEvent {
  eventId: string;
  body: string;
}

/** The logged events of these types about `subjectId` (their `data.id`), locked for update. */
export async function eventsAbout(
  tx: Tx,
  types: readonly string[],
  subjectId: number,
): Promise<StoredEvent[]> {
  return tx<StoredEvent[]>`
    select event_id, body from events
    where event = any(${types as string[]}::text[]) and ((body::jsonb) -> 'data' ->> 'id')::int = ${subjectId}
    order by seq
    for update`;
}

/** Replaces an event's body in the log and in every delivery of it: replays and retries send this. */
export async function replaceBody(tx: Tx, eventId: string, body: string): Promise<void> {
  await tx`update events set body = ${body} where event_id = ${eventId}`;
  await tx`update deliveries set body = ${body} where event_id = ${eventId}`;
}

/** The account's endpoints go, with every delivery and replay of theirs (DESIGN.md §20). */
export async function removeEndpointsOf(tx: Tx, userId: number): Promise<void> {
  await tx`delete from deliveries where endpoint_id in (select id from endpoints where user_id = ${userId})`;
  await tx`delete from endpoints where user_id = ${userId}`;
  await tx`delete from replays where user_id = ${userId}`;
}
