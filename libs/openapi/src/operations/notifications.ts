import {
  listNotificationsQuery,
  markReadBody,
  MAX_LIKE_ACTORS,
  MAX_MENTIONS,
  MAX_STREAMS_PER_ACCOUNT,
  STREAM_REPLAY_LIMIT,
} from '@community/contracts';
import { servedBy, type OperationDeclaration } from '../operation';

/** users-service: your notifications and their live stream (DESIGN.md §13; bound in users-service/src/routes). */
export const NOTIFICATION_OPERATIONS = servedBy('users', [
  {
    id: 'listNotifications',
    method: 'get',
    path: '/notifications',
    tag: 'Notifications',
    summary: 'Your notifications',
    description: `Newest first; \`unread=true\` for the unread ones only. \`reply\`: a comment on your post or a reply to your comment (the subject is the new comment). \`mention\`: \`@yourname\` in a post or comment (at most ${MAX_MENTIONS} names per item are notified). \`like\`: likes of one post fold into one unread notification with \`count\` and the latest ${MAX_LIKE_ACTORS} \`actors\`; a further like moves it to the top with a new id. \`badge\`: you earned one. Never for your own acts; a notification whose subject is deleted or hidden goes away. A time-ordered list: \`cursor\` walks it.`,
    scope: 'read',
    query: listNotificationsQuery,
    response: {
      status: 200,
      kind: 'page',
      schema: 'Notification',
      description: 'A page of your notifications.',
    },
  },
  {
    id: 'countUnreadNotifications',
    method: 'get',
    path: '/notifications/unread-count',
    tag: 'Notifications',
    summary: 'How many are unread',
    description: 'The badge number. With `If-None-Match`, polling it costs nothing until it changes.',
    scope: 'read',
    response: { status: 200, kind: 'single', schema: 'UnreadCount', description: 'Your unread count.' },
  },
  {
    id: 'markNotificationsRead',
    method: 'post',
    path: '/notifications/read',
    tag: 'Notifications',
    summary: 'Mark notifications read',
    description:
      '`{"ids": [...]}` (up to 100) or `{"all": true}`. Only your own unread ones change; `marked` counts them (ids of others, unknown or already read are not counted).',
    scope: 'write',
    body: markReadBody,
    response: { status: 200, kind: 'single', schema: 'Marked', description: 'How many were marked read.' },
  },
  {
    id: 'streamNotifications',
    method: 'get',
    path: '/notifications/stream',
    tag: 'Notifications',
    summary: 'Your notifications, live (Server-Sent Events)',
    description: `\`text/event-stream\`: each new notification as \`id: <notification id>\`, \`event: notification\`, \`data: <the notification as JSON>\`; a comment line (\`: keep-alive\`) every 25 s. Reconnect with \`Last-Event-ID\` (browsers' EventSource does) to get what you missed, up to ${STREAM_REPLAY_LIMIT}. Counted once against your limits when opened. At most ${MAX_STREAMS_PER_ACCOUNT} open per account: the next is \`429\`. Closed within 5 s when its key or token is revoked or the account suspended; closed when the server restarts (reconnect).`,
    scope: 'read',
    response: {
      status: 200,
      kind: 'stream',
      schema: 'Notification',
      description: 'The stream; it stays open.',
    },
  },
] as const satisfies readonly OperationDeclaration[]);
