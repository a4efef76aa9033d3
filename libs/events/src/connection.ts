import { connect } from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel, Options } from 'amqplib';
import type { Logger } from '@community/logging';
import { backoffDelay, errorMessage } from './backoff';
import { redactUrl } from '@community/config';

export interface AmqpConnectionOptions {
  url: string;
  /** Shown as the connection name in the broker, and on log lines. */
  name: string;
  logger: Logger;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Lower values notice a silently dead link sooner (default 10 s; unless the URL sets one). */
  heartbeatSeconds?: number;
  /** How long publish() waits for the broker's confirm before giving up (default 10 s). */
  confirmTimeoutMs?: number;
}

type Setup = (channel: ConfirmChannel) => Promise<void>;
interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * One broker connection with one confirm channel, kept alive for the life of the process. It connects
 * in the background and reconnects forever, re-running every `onConnect` setup on each new channel; it
 * counts as connected only once all setups have succeeded, so nobody publishes to an undeclared exchange.
 */
export class AmqpConnection {
  private readonly setups: Setup[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly log: Logger;
  private model: ChannelModel | undefined;
  private channel: ConfirmChannel | undefined;
  /** A plain channel for questions about queues, on the current connection (opened on first use). */
  private inspection: { model: ChannelModel; channel: Promise<Channel> } | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private started = false;
  private closing = false;

  constructor(private readonly opts: AmqpConnectionOptions) {
    this.log = opts.logger.child({ component: 'amqp', connection: opts.name });
  }

  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    this.connecting = this.connect();
  }

  isConnected(): boolean {
    return this.channel !== undefined;
  }

  waitUntilConnected(timeoutMs = 10_000): Promise<void> {
    if (this.channel) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`RabbitMQ at ${redactUrl(this.opts.url)} not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (err) => (clearTimeout(timer), reject(err)),
      };
      this.waiters.add(waiter);
    });
  }

  onConnect(setup: Setup): void {
    this.setups.push(setup);
    const channel = this.channel;
    if (channel) void setup(channel).catch((err: unknown) => this.abandon(err));
  }

  publish(exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<void> {
    const channel = this.channel;
    if (!channel) return Promise.reject(new Error('RabbitMQ is not connected'));
    const timeoutMs = this.opts.confirmTimeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (err?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(
        () => settle(new Error(`no publisher confirm within ${timeoutMs} ms`)),
        timeoutMs,
      );
      try {
        // amqplib calls back with an error on a nack and when the channel closes before the confirm.
        channel.publish(exchange, routingKey, content, options, (err: unknown) =>
          settle(err ? new Error(`publish not confirmed: ${errorMessage(err)}`) : undefined),
        );
      } catch (err) {
        settle(new Error(`publish failed: ${errorMessage(err)}`));
      }
    });
  }

  /**
   * How many messages wait in a queue, asked on a channel of its own: the broker closes the channel
   * a missing queue was asked about, and that must not be the one events go out on. Rejects while
   * not connected, and without an answer within `timeoutMs` (a link dead but not yet noticed).
   */
  async messageCount(queue: string, timeoutMs = 2_000): Promise<number> {
    const channel = await this.inspectionChannel();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer about ${queue} within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return (await Promise.race([channel.checkQueue(queue), late])).messageCount;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    for (const waiter of this.waiters) waiter.reject(new Error('AMQP connection closed'));
    this.waiters.clear();
    const model = this.model;
    this.model = undefined;
    this.channel = undefined;
    this.inspection = undefined;
    await model?.close().catch(() => undefined);
    await this.connecting;
  }

  private async connect(): Promise<void> {
    if (this.closing) return;
    let model: ChannelModel | undefined;
    try {
      model = await connect(this.connectUrl(), {
        timeout: CONNECT_TIMEOUT_MS,
        // amqplib leaves Nagle's algorithm on: a publish's frames then wait for the broker's delayed
        // ACK (~40 ms) before they leave, on every hop of every event.
        noDelay: true,
        clientProperties: { connection_name: this.opts.name },
      });
      await this.prepare(model);
    } catch (err) {
      model?.close().catch(() => undefined);
      this.scheduleReconnect(err);
    }
  }

  private async prepare(model: ChannelModel): Promise<void> {
    let dropped = false;
    model.on('error', (err: unknown) =>
      this.log.warn({ reason: errorMessage(err) }, 'amqp connection error'),
    );
    model.once('close', () => {
      dropped = true;
      if (this.model === model) this.onDrop();
    });
    const channel = await model.createConfirmChannel();
    channel.on('error', (err: unknown) => this.log.warn({ reason: errorMessage(err) }, 'amqp channel error'));
    // A channel closed by the broker (e.g. a failed declaration) leaves a live but useless connection.
    channel.once('close', () => {
      if (this.channel === channel && !this.closing) model.close().catch(() => undefined);
    });
    for (const setup of this.setups) await setup(channel);
    if (dropped) throw new Error('connection closed during setup');
    if (this.closing) {
      await model.close().catch(() => undefined);
      return;
    }
    this.model = model;
    this.channel = channel;
    this.failures = 0;
    this.log.info('amqp connected');
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  private inspectionChannel(): Promise<Channel> {
    const model = this.model;
    if (!model || !this.channel) return Promise.reject(new Error('RabbitMQ is not connected'));
    if (this.inspection?.model === model) return this.inspection.channel;
    const inspection = { model, channel: model.createChannel() };
    const forget = () => {
      if (this.inspection === inspection) this.inspection = undefined;
    };
    inspection.channel.then((channel) => {
      // A missing queue's 404 closes this channel only: the next question opens another.
      channel.on('error', () => undefined);
      channel.once('close', forget);
    }, forget);
    this.inspection = inspection;
    return inspection.channel;
  }

  private onDrop(): void {
    this.model = undefined;
    this.channel = undefined;
    if (this.closing) return;
    this.log.warn('amqp connection lost, reconnecting');
    this.scheduleReconnect();
  }

  private abandon(err: unknown): void {
    this.log.error({ reason: errorMessage(err) }, 'amqp setup failed, reconnecting');
    this.model?.close().catch(() => undefined);
  }

  private scheduleReconnect(err?: unknown): void {
    if (this.closing) return;
    const delayMs = backoffDelay(
      this.failures++,
      this.opts.reconnectMinMs ?? 500,
      this.opts.reconnectMaxMs ?? 30_000,
    );
    if (err) {
      this.log.warn(
        { reason: errorMessage(err), url: redactUrl(this.opts.url), attempt: this.failures, delayMs },
        'amqp connect failed, retrying',
      );
    }
    this.retryTimer = setTimeout(() => {
      this.connecting = this.connect();
    }, delayMs);
  }

  private connectUrl(): string {
    const url = new URL(this.opts.url);
    if (!url.searchParams.has('heartbeat'))
      url.searchParams.set('heartbeat', String(this.opts.heartbeatSeconds ?? 10));
    return url.toString();
  }
}
