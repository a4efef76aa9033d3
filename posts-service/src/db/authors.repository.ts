import type { Tx } from '@community/db';

export interface AuthorProfile {
  id: number;
  username: string;
  displayName: string;
  avatar: string | null;
}

/** Writes a profile unless the replica already holds one from a newer event. */
export async function upsertAuthor(tx: Tx, author: AuthorProfile, sourceTimestamp: Date): Promise<void> {
  await tx`
    insert into authors (id, username, display_name, avatar, source_timestamp)
    values (${author.id}, ${author.username}, ${author.displayName}, ${author.avatar}, ${sourceTimestamp})
    on conflict (id) do update set
      username = excluded.username,
      display_name = excluded.display_name,
      avatar = coalesce(excluded.avatar, authors.avatar),
      source_timestamp = excluded.source_timestamp,
      updated_at = now()
    where authors.source_timestamp <= excluded.source_timestamp`;
}
