import { eventData } from '@community/contracts';
import { onEveryReplica, type AmqpConnection } from '@community/events';
import type { Logger } from '@community/logging';
import type { KeyResolver } from '../auth/key-resolver';

const EVENTS = ['api_key.revoked', 'user.access_changed', 'oauth_token.revoked'] as const;

/**
 * Drops cached resolutions when a key or OAuth access token is revoked or its owner's role or plan
 * changes. Every gateway replica needs every such event (a miss only means the cache TTL decides).
 */
export function subscribeToInvalidations(
  amqp: AmqpConnection,
  exchange: string,
  keys: KeyResolver,
  logger: Logger,
): void {
  onEveryReplica({
    amqp,
    exchange,
    events: EVENTS,
    logger,
    handle: ({ event, data }) => {
      if (event === 'api_key.revoked') keys.invalidateKey(eventData['api_key.revoked'].parse(data).id);
      if (event === 'user.access_changed')
        keys.invalidateUser(eventData['user.access_changed'].parse(data).id);
      if (event === 'oauth_token.revoked')
        for (const id of eventData['oauth_token.revoked'].parse(data).ids) keys.invalidateAccessToken(id);
    },
  });
}
