import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { UnauthorizedError } from '@community/contracts';
import type { Sql } from '@community/db';
import {
  errorReply,
  frameLine,
  gatewayFrame,
  holdChannel,
  identityOf,
  readFrames,
  STREAM_CHANNEL_PATH,
  STREAM_CHANNEL_PROTOCOL,
  type ServiceFrame,
} from '@community/http-kit';
import type { Logger } from '@community/logging';
import { NOTIFICATION_OPERATIONS, operationPath } from '@community/openapi';
import { contextOf, tracer } from '@community/telemetry';
import { SpanKind } from '@opentelemetry/api';
import { Gauge, type Registry } from 'prom-client';
import type { StreamHub } from './hub';
import { openNotificationStream } from './open-stream';
import type { StreamSink } from './sse-stream';

export interface StreamChannelsOptions {
  sql: Sql;
  streams: StreamHub;
  logger: Logger;
  registry: Registry;
  internalToken: string;
  internalTokenPrevious?: string;
}

/** A gateway this far behind reading its channel is cut off: its streams reconnect and replay. */
const MAX_CHANNEL_BACKLOG_BYTES = 16 * 1024 * 1024;
/** How long a gateway has to close its side of a channel this process ended. */
const CLOSING_MS = 1_000;
/** The stream's route, as its requests' spans name it. */
const STREAM_ROUTE = operationPath(NOTIFICATION_OPERATIONS.find((op) => op.id === 'streamNotifications')!);
/** A gateway's frame is a stream's path and headers: never near this. */
const MAX_FRAME_BYTES = 64 * 1024;

/**
 * The gateways' channels to this process (libs/http-kit/src/stream-channel.ts): each stream opened
 * on one is verified as its own request would be — the gateway's signature over its path and
 * caller — and then held by the hub like any other.
 */
export class StreamChannels {
  private readonly channels = new Set<Channel>();
  private retiring = false;

  constructor(private readonly opts: StreamChannelsOptions) {
    const channels = this.channels;
    new Gauge({
      name: 'notification_stream_channels_open',
      help: "Gateways' channels carrying notification streams to this process (one per gateway process)",
      registers: [opts.registry],
      collect() {
        this.set(channels.size);
      },
    });
  }

  /** The server's `upgrade` listener: a gateway's channel, or a refusal. */
  readonly accept = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (req.url !== STREAM_CHANNEL_PATH || req.headers.upgrade?.toLowerCase() !== STREAM_CHANNEL_PROTOCOL)
      return refuse(socket, 404, 'not_found', 'there is no such upgrade here');
    if (!this.signedByGateway(req))
      return refuse(socket, 401, 'unauthorized', 'requests must come through the API gateway');
    // A gateway told to go elsewhere that reaches this process again relays its streams one by one.
    if (this.retiring) return refuse(socket, 503, 'service_unavailable', 'this process is stopping');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${STREAM_CHANNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
    );
    const channel = new Channel(socket as Socket, this.opts);
    this.channels.add(channel);
    socket.once('close', () => this.channels.delete(channel));
    readFrames(socket, (frame) => channel.receive(frame), MAX_FRAME_BYTES, head);
  };

  /** The process is stopping: each gateway opens its next streams elsewhere. */
  goAway(): void {
    this.retiring = true;
    for (const channel of this.channels) channel.send({ goaway: true });
  }

  /** Closes every channel, once its streams have ended (the hub's `closeAll`). */
  closeAll(): void {
    for (const channel of this.channels) channel.end();
  }

  private signedByGateway(req: IncomingMessage): boolean {
    const { internalToken, internalTokenPrevious } = this.opts;
    const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    return identityOf(internalToken, internalTokenPrevious, request) !== null;
  }
}

/** One gateway's channel: its streams by the gateway's ids. */
class Channel {
  private readonly sinks = new Map<number, ChannelSink>();

  constructor(
    private readonly socket: Socket,
    private readonly opts: StreamChannelsOptions,
  ) {
    holdChannel(socket);
    socket.once('close', () => {
      for (const sink of [...this.sinks.values()]) sink.leave();
    });
  }

  receive(frame: unknown): void {
    const parsed = gatewayFrame.safeParse(frame);
    if (!parsed.success) {
      this.socket.destroy(new Error('a gateway frame of an unknown shape'));
      return;
    }
    const message = parsed.data;
    if ('close' in message) this.sinks.get(message.close)?.leave();
    else if (!this.sinks.has(message.open)) void this.open(message.open, message.url, message.headers);
  }

  send(frame: ServiceFrame): void {
    if (!this.socket.writable) return;
    if (this.socket.writableLength > MAX_CHANNEL_BACKLOG_BYTES) {
      this.opts.logger.warn('a gateway stopped reading its stream channel: closing it');
      this.socket.destroy();
      return;
    }
    this.socket.write(frameLine(frame));
  }

  /** Ends the channel; a gateway that does not close its side within a second is cut. */
  end(): void {
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSING_MS).unref();
  }

  forget(id: number): void {
    this.sinks.delete(id);
  }

  /**
   * One stream's opening: its own request's checks and answer, a server span of the gateway's
   * trace as that request would have had (the frame carries its `traceparent`).
   */
  private open(id: number, url: string, headers: Record<string, string>): Promise<void> {
    const sink = new ChannelSink(this, id);
    this.sinks.set(id, sink);
    const { sql, streams, logger, internalToken, internalTokenPrevious } = this.opts;
    const span = {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'GET', 'http.route': STREAM_ROUTE },
    };
    return tracer().startActiveSpan(
      `GET ${STREAM_ROUTE}`,
      span,
      contextOf(headers.traceparent),
      async (opening) => {
        try {
          const actor = identityOf(internalToken, internalTokenPrevious, {
            method: 'GET',
            url,
            headers,
          })?.actor;
          if (!actor) throw new UnauthorizedError('requests must come through the API gateway');
          await openNotificationStream({ sql, streams }, actor, headers['last-event-id'], sink);
          opening.setAttribute('http.response.status_code', 200);
        } catch (err) {
          this.forget(id);
          const reply = errorReply(err, logger, {
            method: 'GET',
            path: url,
            requestId: headers['x-request-id'],
          });
          opening.setAttribute('http.response.status_code', reply.status);
          this.send({ id, ...reply });
        } finally {
          opening.end();
        }
      },
    );
  }
}

/** A stream's end of the channel. */
class ChannelSink implements StreamSink {
  private leaving: (() => void) | null = null;
  private gone = false;

  constructor(
    private readonly channel: Channel,
    private readonly id: number,
  ) {}

  /** The channel's backlog is the channel's to bound (MAX_CHANNEL_BACKLOG_BYTES), the gateway's each client's. */
  readonly backlog = 0;

  open(): void {
    this.channel.send({ id: this.id, status: 200 });
  }

  write(data: string): void {
    this.channel.send({ id: this.id, data });
  }

  end(): void {
    if (this.gone) return;
    this.gone = true;
    this.channel.forget(this.id);
    this.channel.send({ id: this.id, end: true });
  }

  onLeave(leave: () => void): void {
    this.leaving = leave;
    // Gone while what it missed was being read: no frame will say so again.
    if (this.gone) queueMicrotask(leave);
  }

  /** The gateway closed the stream, or the channel went. */
  leave(): void {
    this.gone = true;
    this.channel.forget(this.id);
    this.leaving?.();
  }
}

const REASONS = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' } as const;

/** An upgrade refused, in the envelope, as the request it then is. */
function refuse(socket: Duplex, status: keyof typeof REASONS, error: string, message: string): void {
  const text = JSON.stringify({ error, message });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
