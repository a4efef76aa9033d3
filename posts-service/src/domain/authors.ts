import { eventData } from '@community/contracts';
import type { Tx } from '@community/db';
import type { EventEnvelope } from '@community/events';
import { recordRegistration, upsertAuthor } from '../db/authors.repository';

/**
 * user.registered: a new author; the event says nothing of the avatar, so a known one is kept. Its
 * timestamp is when the account was created: how old it is decides whether its flags count (§21).
 */
export async function onUserRegistered(tx: Tx, event: EventEnvelope): Promise<void> {
  const data = eventData['user.registered'].parse(event.data);
  const at = new Date(event.timestamp);
  await upsertAuthor(
    tx,
    { id: data.id, username: data.username, displayName: data.display_name, avatar: undefined },
    at,
  );
  await recordRegistration(tx, data.id, at);
}

/**
 * user.updated: the profile as it is now; an event older than the replica's copy changes nothing.
 * A null avatar is the default one. Producers before avatars were URLs sent the default picture as a
 * `data:` URI: that is the default too, never something to answer with.
 */
export async function onUserUpdated(tx: Tx, event: EventEnvelope): Promise<void> {
  const data = eventData['user.updated'].parse(event.data);
  await upsertAuthor(
    tx,
    {
      id: data.id,
      username: data.username,
      displayName: data.display_name,
      avatar: data.avatar?.startsWith('data:') ? null : data.avatar,
    },
    new Date(event.timestamp),
  );
}
