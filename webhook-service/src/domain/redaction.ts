import { eventData, type PublicEvent } from '@community/contracts';
import type { Tx } from '@community/db';
import type { EventHandler } from '@community/events';
import { eventsAbout, removeEndpointsOf, replaceBody } from '../db/redaction.repository';

/*
 * Stored events forget (DESIGN.md §20). When a member is erased, or a post or comment is deleted or
 * hidden by moderation, the events about it in the log and in every delivery keep their id, type and
 * shape: their text becomes empty, an erased member's profile fields `deleted-<id>`, and
 * `data.redacted: true` is added. Replays and retries send the stored bodies, so the redacted form.
 */

type Subject = 'post' | 'comment' | 'user';

/** The public events that are about a subject (their `data.id`) and say something of it. */
const EVENTS_ABOUT: Record<Subject, readonly PublicEvent[]> = {
  post: ['post.created', 'post.updated'],
  comment: ['comment.created'],
  user: ['user.registered'],
};

interface StoredBody {
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** An event's body as the log keeps it once its subject is forgotten. */
export function redactedBody(body: string): string {
  const parsed = JSON.parse(body) as StoredBody;
  const data = { ...parsed.data };
  if ('title' in data) data.title = '';
  if (parsed.event === 'user.registered') {
    data.username = `deleted-${String(data.id)}`;
    data.display_name = `deleted-${String(data.id)}`;
  }
  data.redacted = true;
  return JSON.stringify({ ...parsed, data });
}

/** Redacts every stored event about the subject; one already redacted is left as it is. */
export async function forgetSubject(tx: Tx, subject: Subject, id: number): Promise<void> {
  for (const stored of await eventsAbout(tx, EVENTS_ABOUT[subject], id)) {
    const body = redactedBody(stored.body);
    if (body !== stored.body) await replaceBody(tx, stored.eventId, body);
  }
}

const onPostDeleted: EventHandler = (tx, event) =>
  forgetSubject(tx, 'post', eventData['post.deleted'].parse(event.data).id);

const onCommentDeleted: EventHandler = (tx, event) =>
  forgetSubject(tx, 'comment', eventData['comment.deleted'].parse(event.data).id);

/** A hide (by a moderator or by flags) is the moment the item's stored events forget it. */
const onModerationAction: EventHandler = async (tx, event) => {
  const act = eventData['moderation.action'].parse(event.data);
  if (act.action === 'hide' && act.target_type !== 'user')
    await forgetSubject(tx, act.target_type, act.target_id);
};

/** An erased member's endpoints go with their deliveries, and the log forgets their profile. */
const onUserDeleted: EventHandler = async (tx, event) => {
  const { id } = eventData['user.deleted'].parse(event.data);
  await removeEndpointsOf(tx, id);
  await forgetSubject(tx, 'user', id);
};

/** Run before an event's fan-out: an erased member's own endpoints never receive `user.deleted`. */
export const redactionHandlers: Record<string, EventHandler> = {
  'post.deleted': onPostDeleted,
  'comment.deleted': onCommentDeleted,
  'moderation.action': onModerationAction,
  'user.deleted': onUserDeleted,
};
