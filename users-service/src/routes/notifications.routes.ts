import { MAX_ID, ValidationError } from '@community/contracts';
import { ANSWERED, type OperationHandlers } from '@community/http-kit';
import type { NOTIFICATION_OPERATIONS } from '@community/openapi';
import type { AppDeps } from '../app-deps';
import {
  markNotificationsRead,
  missedNotifications,
  notificationsAfter,
  readNotifications,
  streamRecipient,
  unreadCount,
} from '../domain/notifications/read';

/** The handlers of `NOTIFICATION_OPERATIONS` (libs/openapi): your notifications (DESIGN.md §13). */
export function notificationsHandlers(deps: Pick<AppDeps, 'sql' | 'streams'>) {
  return {
    listNotifications: ({ actor, query }) => ({
      list: { name: 'notifications', scope: query.unread ? 'unread' : '' },
      query,
      byPage: () => readNotifications(deps.sql, actor, query),
      after: (id: number) => notificationsAfter(deps.sql, actor, query, id),
    }),
    countUnreadNotifications: ({ actor }) => unreadCount(deps.sql, actor),
    markNotificationsRead: ({ actor, body }) => markNotificationsRead(deps.sql, actor, body),
    streamNotifications: async ({ actor, req, res }) => {
      const recipient = streamRecipient(actor);
      const lastEventId = parseLastEventId(req.headers['last-event-id']);
      // Checked before the stream opens: after it, an error could no longer be an answer.
      const missed = lastEventId === undefined ? [] : await missedNotifications(deps.sql, actor, lastEventId);
      const stream = deps.streams.attach(recipient, res);
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
      return ANSWERED;
    },
  } satisfies Partial<OperationHandlers<typeof NOTIFICATION_OPERATIONS>>;
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
