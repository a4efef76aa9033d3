import { eventData } from '@community/contracts';
import type { Tx } from '@community/db';
import type { EventEnvelope } from '@community/events';
import { upsertAuthor } from '../db/authors.repository';

/** user.registered: a new author; the avatar stays unset until the user picks one. */
export async function onUserRegistered(tx: Tx, event: EventEnvelope): Promise<void> {
  const data = eventData['user.registered'].parse(event.data);
  await upsertAuthor(
    tx,
    { id: data.id, username: data.username, displayName: data.display_name, avatar: null },
    new Date(event.timestamp),
  );
}

/** user.updated: the profile as it is now; an event older than the replica's copy changes nothing. */
export async function onUserUpdated(tx: Tx, event: EventEnvelope): Promise<void> {
  const data = eventData['user.updated'].parse(event.data);
  await upsertAuthor(
    tx,
    { id: data.id, username: data.username, displayName: data.display_name, avatar: data.avatar },
    new Date(event.timestamp),
  );
}
