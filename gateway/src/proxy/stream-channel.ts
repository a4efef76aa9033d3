import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import {
  EVENT_STREAM_HEADERS,
  FAULT_HEADER,
  frameLine,
  holdChannel,
  readFrames,
  signIdentity,
  STREAM_CHANNEL_PATH,
  STREAM_CHANNEL_PROTOCOL,
  type GatewayFrame,
} from '@community/http-kit';
import { upstreamSpan } from '../http/tracing';
import { StalledError } from './breaker';
import type { ForwardOptions } from './forward';
import { outgoingPath } from './headers';

/** A client this far behind reading its stream is cut off; it reconnects with `Last-Event-ID`. */
const MAX_CLIENT_BACKLOG_BYTES = 256 * 1024;
/** A notification is a few KiB: a line this long is a broken service. */
const MAX_FRAME_BYTES = 1024 * 1024;
/**
 * Openings and closings the service has not read, past what the kernel holds: a service that hung.
 * The channel goes (its streams reconnect), and what clients keep trying no longer piles up here.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;
/** The request headers a stream's opening passes on, beside the identity signed over its path. */
const PASSED_ON = ['last-event-id', 'x-request-id'] as const;

export interface ChannelOptions {
  /** The service, as errors name it. */
  name: string;
  /** The service's URL: only its origin counts. */
  target: string;
  /** How long opening the channel may take. */
  timeoutMs: number;
  lookup?: LookupFunction;
  /** INTERNAL_TOKEN, to sign the channel's opening. */
  internalToken: string;
}

/**
 * Opens a channel to the service (libs/http-kit/src/stream-channel.ts); null when the service
 * answers anything but `101` — a release without channels, whose streams go one per connection.
 * Rejects when the service cannot be reached within `timeoutMs`.
 */
export function openChannel({
  name,
  target,
  timeoutMs,
  lookup,
  internalToken,
}: ChannelOptions): Promise<StreamChannel | null> {
  const url = new URL(STREAM_CHANNEL_PATH, target);
  const identity = signIdentity(internalToken, { method: 'GET', url: STREAM_CHANNEL_PATH, actor: null });
  const headers = { ...identity, Connection: 'Upgrade', Upgrade: STREAM_CHANNEL_PROTOCOL };
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      headers,
      lookup,
      agent: false,
    });
    const timer = setTimeout(
      () => request.destroy(new StalledError(`the ${name} service did not answer`)),
      timeoutMs,
    );
    request.once('upgrade', (_res, socket, head) => {
      clearTimeout(timer);
      resolve(new StreamChannel(socket as Socket, head, target, name));
    });
    request.once('response', () => {
      clearTimeout(timer);
      // Whatever it answers instead, it is not read: it may be a stream that never ends.
      request.destroy();
      resolve(null);
    });
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end();
  });
}

/** A stream relayed on the channel, by its id there. */
interface Relayed {
  res: ServerResponse;
  /** Its head went to the client: from now on it can only end or be cut. */
  answered: boolean;
  /** Settles the relay's promise: the head arrived (or the error that answers instead), or it failed. */
  settle(err?: Error): void;
}

/**
 * One channel to a service (users-service, for notifications), carrying every stream relayed on
 * it: the client's answer is written here from the service's frames, and a client that leaves
 * closes its stream there. A service stopping says `goaway` first: streams opened from then on go
 * on a new channel.
 */
export class StreamChannel {
  private readonly streams = new Map<number, Relayed>();
  private nextId = 1;
  private draining = false;
  /** Resolves once the channel is gone, whoever closed it. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Socket,
    head: Buffer,
    private readonly target: string,
    private readonly name: string,
  ) {
    holdChannel(socket);
    socket.setKeepAlive(true, 30_000);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.lost());
    readFrames(socket, (frame) => this.receive(frame as Frame), MAX_FRAME_BYTES, head);
  }

  /** Whether new streams may open here. */
  get usable(): boolean {
    return !this.draining && !this.socket.destroyed;
  }

  /**
   * Relays the client's stream: settles once its head was written to the client (or the error that
   * answers it), and rejects when none came within `timeoutMs` or the channel went first.
   */
  relay(
    req: IncomingMessage,
    res: ServerResponse,
    { headersFor }: ForwardOptions,
    timeoutMs: number,
  ): Promise<void> {
    if (res.destroyed) return Promise.resolve();
    const id = this.nextId++;
    const url = outgoingPath(req.url ?? '/');
    const headers: Record<string, string> = { ...headersFor?.(url) };
    for (const name of PASSED_ON) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const span = upstreamSpan(req, this.target, headers);
    return new Promise<void>((resolve, reject) => {
      const stream: Relayed = {
        res,
        answered: false,
        settle: (err) => {
          clearTimeout(timer);
          stream.settle = () => {};
          endSpan(span, res, err);
          if (err) reject(err);
          else resolve();
        },
      };
      const timer = setTimeout(() => {
        this.forget(id);
        stream.settle(new StalledError(`the ${this.name} service did not answer`));
      }, timeoutMs);
      this.streams.set(id, stream);
      // Whoever leaves first, the other side goes too: a client gone frees the service's stream.
      res.once('close', () => {
        this.forget(id);
        stream.settle();
      });
      this.send({ open: id, url, headers });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  /** Closes the stream on the service's side, unless it ended there. */
  private forget(id: number): void {
    if (this.streams.delete(id)) this.send({ close: id });
  }

  private send(frame: GatewayFrame): void {
    if (!this.socket.writable) return;
    if (this.socket.writableLength > MAX_UNREAD_BYTES) this.socket.destroy();
    else this.socket.write(frameLine(frame));
  }

  private receive(frame: Frame): void {
    if (frame.goaway) {
      this.draining = true;
      return;
    }
    const stream = this.streams.get(frame.id as number);
    if (!stream) return;
    const { res } = stream;
    if (typeof frame.data === 'string' && stream.answered) {
      res.write(frame.data);
      if (res.writableLength > MAX_CLIENT_BACKLOG_BYTES) res.destroy();
    } else if (frame.end) {
      this.streams.delete(frame.id as number);
      if (stream.answered) res.end();
      else stream.settle(new StalledError(`the ${this.name} service ended the stream before it began`));
    } else if (frame.status === 200 && !stream.answered) {
      stream.answered = true;
      res.writeHead(200, EVENT_STREAM_HEADERS);
      stream.settle();
    } else if (typeof frame.status === 'number' && !stream.answered) {
      this.streams.delete(frame.id as number);
      answerRefusal(res, frame.status, frame.headers, frame.body);
      stream.settle();
    }
  }

  /** The channel went: its streams are cut (clients reconnect), those still opening fail. */
  private lost(): void {
    for (const { res, answered, settle } of this.streams.values()) {
      if (answered) res.destroy();
      else settle(new Error('the stream channel closed'));
    }
    this.streams.clear();
  }
}

/** A service's frame, as far as the gateway reads it (users-service/src/streams/channel.ts writes them). */
interface Frame {
  id?: unknown;
  status?: unknown;
  data?: unknown;
  end?: unknown;
  headers?: unknown;
  body?: unknown;
  goaway?: unknown;
}

/** The error that answers a stream the service refused, as a proxied answer would be passed on. */
function answerRefusal(res: ServerResponse, status: number, headers: unknown, body: unknown): void {
  const passed: Record<string, string> = {};
  if (headers && typeof headers === 'object')
    for (const [name, value] of Object.entries(headers))
      if (typeof value === 'string' && name.toLowerCase() !== FAULT_HEADER) passed[name] = value;
  try {
    res.writeHead(status, { ...passed, 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  } catch {
    // Not an answer HTTP can carry: the service is broken, and the client sees a cut connection.
    res.destroy();
  }
}

function endSpan(span: Span | null, res: ServerResponse, err: Error | undefined): void {
  if (!span) return;
  if (err) span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
  else if (res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
  span.end();
}
