import amqp from 'amqplib';
import type { Channel, ChannelModel } from 'amqplib';

/**
 * Deletes the given queues and exchanges, ignoring ones that are already gone. The broker closes a
 * channel on the first error, so each object gets its own channel.
 */
export async function deleteAmqpObjects(
  amqpUrl: string,
  names: { exchanges?: string[]; queues?: string[] },
): Promise<void> {
  const queues = names.queues ?? [];
  const exchanges = names.exchanges ?? [];
  if (queues.length + exchanges.length === 0) return;

  const connection = await amqp.connect(amqpUrl);
  connection.on('error', () => {}); // a failed delete must not surface as an unhandled 'error' event
  try {
    // Queues first, so no binding keeps pointing at an exchange that is about to go.
    for (const queue of queues) await onFreshChannel(connection, (ch) => ch.deleteQueue(queue));
    for (const exchange of exchanges) await onFreshChannel(connection, (ch) => ch.deleteExchange(exchange));
  } finally {
    await connection.close().catch(() => {});
  }
}

async function onFreshChannel(
  connection: ChannelModel,
  act: (channel: Channel) => Promise<unknown>,
): Promise<void> {
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    await act(channel);
    await channel.close();
  } catch {
    // Best effort: the object is missing or the channel died; the next object gets a new channel.
  }
}
