import type { Tx } from '@community/db';

export interface AuthorProfile {
  id: number;
  username: string;
  displayName: string;
  /** The URL the user set; null: the default avatar; undefined: not known (keeps what the replica has). */
  avatar: string | null | undefined;
}

/** Writes a profile unless the replica already holds one from a newer event. */
export async function upsertAuthor(tx: Tx, author: AuthorProfile, sourceTimestamp: Date): Promise<void> {
  await tx`
    insert into authors (id, username, display_name, avatar, source_timestamp)
    values (${author.id}, ${author.username}, ${author.displayName}, ${author.avatar ?? null}, ${sourceTimestamp})
    on conflict (id) do update set
      username = excluded.username,
      display_name = excluded.display_name,
      avatar = case when ${author.avatar === undefined} then authors.avatar else excluded.avatar end,
      source_timestamp = excluded.source_timestamp,
      updated_at = now()
    where authors.source_timestamp <= excluded.source_timestamp`;
}

/**
 * When users-service created the account, as its user.registered event says; the earliest known wins,
 * so a late or repeated event can only correct it backwards, whatever order the events arrive in.
 */
export async function recordRegistration(tx: Tx, id: number, registeredAt: Date): Promise<void> {
  await tx`
    update authors set registered_at = ${registeredAt}
    where id = ${id} and (registered_at is null or registered_at > ${registeredAt})`;
}

/** When the account was created, null when posts-service has not heard of it. */
export async function findRegistration(tx: Tx, id: number): Promise<Date | null> {
  const [row] = await tx<{ registeredAt: Date | null }[]>`select registered_at from authors where id = ${id}`;
  return row?.registeredAt ?? null;
}
