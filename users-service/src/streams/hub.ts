import { eventData, type Notification } from '@community/contracts';
import { onEveryReplica, type AmqpConnection } from '@community/events';
import type { Logger } from '@community/logging';
import { Gauge, type Registry } from 'prom-client';
import { SseStream, type StreamSink } from './sse-stream';

export interface StreamHubOptions {
  heartbeatMs: number;
  registry: Registry;
}

/**
 * The notification streams this process holds, by recipient. A notification stored by any replica
 * reaches it over the bus (`notification.created` on this process's own queue: see {@link listen}).
 */
export class StreamHub {
  private readonly byRecipient = new Map<number, Set<SseStream>>();
  private open = 0;

  constructor(private readonly opts: StreamHubOptions) {
    const open = () => this.open;
    new Gauge({
      name: 'notification_streams_open',
      help: 'Notification streams (Server-Sent Events) this process holds open',
      registers: [opts.registry],
      collect() {
        this.set(open());
      },
    });
  }

  /** Opens a stream for the recipient: headers sent, live notifications held until `replay`. */
  attach(recipientId: number, sink: StreamSink): SseStream {
    const stream = new SseStream(recipientId, sink, this.opts.heartbeatMs, (closed) => this.detach(closed));
    let streams = this.byRecipient.get(recipientId);
    if (!streams) this.byRecipient.set(recipientId, (streams = new Set()));
    streams.add(stream);
    this.open++;
    return stream;
  }

  deliver(recipientId: number, item: Notification): void {
    for (const stream of this.byRecipient.get(recipientId) ?? []) stream.push(item);
  }

  /** Ends every stream (shutdown, or a gap in the bus): clients reconnect and replay what they missed. */
  closeAll(): void {
    for (const streams of [...this.byRecipient.values()]) for (const stream of [...streams]) stream.close();
  }

  /** Feeds the hub from the bus; after a reconnect of the bus, streams that may have missed something close. */
  listen(amqp: AmqpConnection, exchange: string, logger: Logger): void {
    onEveryReplica({
      amqp,
      exchange,
      events: ['notification.created'],
      logger,
      handle: ({ data }) => {
        const { recipient_id, notification } = eventData['notification.created'].parse(data);
        this.deliver(recipient_id, notification);
      },
      onSubscribed: () => this.closeAll(),
    });
  }

  private detach(stream: SseStream): void {
    const streams = this.byRecipient.get(stream.recipientId);
    if (!streams?.delete(stream)) return;
    this.open--;
    if (streams.size === 0) this.byRecipient.delete(stream.recipientId);
  }
}
