import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallerGoneError, StalledError } from './breaker';
import {
  forward,
  servicePool,
  type Forwarded,
  type ForwardOptions,
  type PoolOptions,
  type ServicePool,
} from './forward';
import { openChannel, type StreamChannel } from './stream-channel';

/** How long the gateway relays streams one per connection after the service refused a channel. */
const CHANNEL_RETRY_MS = 10_000;

export interface StreamsOptions extends PoolOptions {
  name: string;
  /** INTERNAL_TOKEN, to open a channel (./stream-channel.ts); without it, one connection a stream. */
  internalToken?: string;
}

/**
 * The long-lived answers of one service: no timeout once the head came, the head within
 * `timeoutMs`. They go on one channel to the service (./stream-channel.ts), so that a stream costs
 * the gateway its client's connection alone; to a service without channels (a release before them,
 * during a rolling upgrade), each on a connection of its own.
 */
export class Streams {
  private readonly service: ServicePool;
  private current: StreamChannel | null = null;
  /** Every channel still open: the current one, and those draining after a `goaway`. */
  private readonly channels = new Set<StreamChannel>();
  private opening: Promise<StreamChannel | null> | null = null;
  private refusedUntil = 0;

  constructor(private readonly opts: StreamsOptions) {
    // As many as are open: the open streams are capped per account (streams/open-streams.ts).
    this.service = servicePool({ ...opts, endless: true, connections: null });
  }

  async relay(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<void> {
    const startedAt = performance.now();
    const channel = await this.usableChannel();
    if (!channel) return this.relayAlone(req, res, options);
    const leftMs = Math.max(0, this.opts.timeoutMs - (performance.now() - startedAt));
    return channel.relay(req, res, options, leftMs);
  }

  /** The channel new streams go on, opened when there is none usable; null: one connection a stream. */
  private usableChannel(): Promise<StreamChannel | null> {
    const { name, internalToken, target, timeoutMs, lookup } = this.opts;
    if (!internalToken || performance.now() < this.refusedUntil) return Promise.resolve(null);
    if (this.current?.usable) return Promise.resolve(this.current);
    // One opening for every stream that waits on it; a failure is theirs (a 503), the next one tries again.
    this.opening ??= openChannel({ name, target, timeoutMs, lookup, internalToken }).then(
      (channel) => {
        this.opening = null;
        this.current = channel;
        if (channel) {
          this.channels.add(channel);
          void channel.closed.then(() => this.channels.delete(channel));
        } else this.refusedUntil = performance.now() + CHANNEL_RETRY_MS;
        return channel;
      },
      (err: unknown) => {
        this.opening = null;
        throw err;
      },
    );
    return this.opening;
  }

  /** A stream on a connection of its own. */
  private relayAlone(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      // Assigned below: a request the service cannot be sent fails before forward() returns.
      let upstream: Forwarded | null = null;
      let timer: NodeJS.Timeout | undefined = undefined;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          upstream?.abort(err);
          reject(err);
        } else resolve();
      };
      upstream = forward(req, res, this.service, options, {
        answered: () => settle(),
        failed: (err) => {
          // The client gone first: nobody to answer, and nothing the service did.
          if (err instanceof CallerGoneError) return settle();
          // A service that dies before its head, while the client waits: the caller answers 503.
          settle(err);
          if (res.headersSent) res.destroy();
        },
      });
      if (settled) return;
      timer = setTimeout(
        () => settle(new StalledError(`the ${this.opts.name} service did not answer`)),
        this.opts.timeoutMs,
      );
      // Whoever leaves first, the other side goes too: a client gone frees the service's stream.
      res.once('close', () => settle());
    });
  }

  close(): void {
    void this.service.pool.destroy();
    for (const channel of this.channels) channel.close();
    void this.opening?.then(
      (channel) => channel?.close(),
      () => {},
    );
  }
}
