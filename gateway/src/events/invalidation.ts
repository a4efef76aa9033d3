import { eventData } from '@community/contracts';
import type { AmqpConnection } from '@community/events';
import type { Logger } from '@community/logging';
import type { KeyResolver } from '../auth/key-resolver';

const EVENTS = ['api_key.revoked', 'user.access_changed', 'oauth_token.revoked'] as const;

/**
 * Drops cached resolutions when a key or OAuth access token is revoked or its owner's role or plan
 * changes. Every gateway replica needs every such event, so each listens on its own exclusive,
 * auto-deleted queue (a miss only means the cache TTL decides).
 */
export function subscribeToInvalidations(
  amqp: AmqpConnection,
  exchange: string,
  keys: KeyResolver,
  logger: Logger,
): void {
  amqp.onConnect(async (channel) => {
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const event of EVENTS) await channel.bindQueue(queue, exchange, event);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        try {
          const { event, data } = JSON.parse(message.content.toString('utf8')) as {
            event: string;
            data: unknown;
          };
          if (event === 'api_key.revoked') keys.invalidateKey(eventData['api_key.revoked'].parse(data).id);
          if (event === 'user.access_changed')
            keys.invalidateUser(eventData['user.access_changed'].parse(data).id);
          if (event === 'oauth_token.revoked')
            for (const id of eventData['oauth_token.revoked'].parse(data).ids) keys.invalidateAccessToken(id);
        } catch (err) {
          logger.warn({ err: { message: (err as Error).message } }, 'ignored a malformed invalidation event');
        }
      },
      { noAck: true },
    );
  });
}
