import { ANSWERED, type OperationHandlers } from '@community/http-kit';
import type { NOTIFICATION_OPERATIONS } from '@community/openapi';
import type { AppDeps } from '../app-deps';
import {
  markNotificationsRead,
  notificationsAfter,
  readNotifications,
  unreadCount,
} from '../domain/notifications/read';
import { openNotificationStream } from '../streams/open-stream';
import { responseSink } from '../streams/response-sink';

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
      await openNotificationStream(deps, actor, req.headers['last-event-id'], responseSink(res));
      return ANSWERED;
    },
  } satisfies Partial<OperationHandlers<typeof NOTIFICATION_OPERATIONS>>;
}
