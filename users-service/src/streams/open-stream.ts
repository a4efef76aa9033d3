import { MAX_ID, ValidationError, type Actor } from '@community/contracts';
import type { Sql } from '@community/db';
import { missedNotifications, streamRecipient } from '../domain/notifications/read';
import type { StreamHub } from './hub';
import type { StreamSink } from './sse-stream';

/**
 * Opens the actor's notification stream on `sink` (DESIGN.md §13): what was missed after
 * `Last-Event-ID` first, then live. Throws, with nothing sent, when the stream may not open.
 */
export async function openNotificationStream(
  deps: { sql: Sql; streams: StreamHub },
  actor: Actor,
  lastEventIdHeader: string | string[] | undefined,
  sink: StreamSink,
): Promise<void> {
  const recipient = streamRecipient(actor);
  const lastEventId = parseLastEventId(lastEventIdHeader);
  // Checked before the stream opens: after it, an error could no longer be an answer.
  const missed = lastEventId === undefined ? [] : await missedNotifications(deps.sql, actor, lastEventId);
  const stream = deps.streams.attach(recipient, sink);
  // What was stored between that read and the attach went by before the stream listened: read
  // again (what comes from now on is held until then).
  const since = missed.at(-1)?.id ?? lastEventId;
  try {
    const caughtUp = since === undefined ? [] : await missedNotifications(deps.sql, actor, since);
    stream.replay([...missed, ...caughtUp], lastEventId);
  } catch {
    // The stream is open already: closing it is the answer; the client reconnects and replays.
    stream.close();
  }
}

/** `Last-Event-ID` as this API writes ids; anything else is a client bug worth a clear 400. */
function parseLastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (typeof header === 'string' && /^\d{1,10}$/.test(header) && Number(header) <= MAX_ID)
    return Number(header);
  throw ValidationError.single(
    'Last-Event-ID',
    'invalid_value',
    'Last-Event-ID must be an event id this stream sent',
  );
}
