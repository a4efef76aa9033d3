import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { Pool, type Dispatcher } from 'undici';
import { FAULT_HEADER, REQUEST_FAULT } from '@community/http-kit';
import { upstreamSpan } from '../http/tracing';
import { CallerGoneError } from './breaker';

/** A service's pool of connections (undici's), which times the service, and its body timeout. */
export interface ServicePool {
  pool: Pool;
  /**
   * How long the answer's body may stand still: the pool's limit on the service's silences between
   * pieces, and the gateway's on a client that leaves a piece unread (0: no limit, for streams).
   */
  bodyTimeoutMs: number;
  /** The service's origin, as its client spans name it. */
  target: string;
}

export interface PoolOptions {
  /** The service's URL: only its origin counts. */
  target: string;
  /** Each silence of the service: resolving and connecting, waiting for the head, between pieces. */
  timeoutMs: number;
  /** Whether the body may be silent for good (Server-Sent Events): only its head is timed then. */
  endless?: boolean;
  /** DNS for the service's name: node's by default (tests stand in one that never answers). */
  lookup?: LookupFunction;
  /** Connections to the service at most (256; null: no limit); requests beyond wait for one. */
  connections?: number | null;
}

/**
 * A service's connections: kept alive while used, let go after `timeoutMs` idle (sooner if the
 * service says so in its Keep-Alive). `connect.timeout` bounds resolving the name and connecting:
 * a connection that hangs (a restarted container's old address, DNS that never answers) would
 * otherwise wait for the kernel's minutes; `headersTimeout` the wait for the answer's head,
 * `bodyTimeout` each wait for a piece of its body.
 */
export function servicePool({
  target,
  timeoutMs,
  endless = false,
  lookup,
  connections = 256,
}: PoolOptions): ServicePool {
  const bodyTimeoutMs = endless ? 0 : timeoutMs;
  const pool = new Pool(new URL(target).origin, {
    connections,
    pipelining: 1,
    connect: { timeout: timeoutMs, lookup },
    headersTimeout: timeoutMs,
    bodyTimeout: bodyTimeoutMs,
    keepAliveTimeout: timeoutMs,
    keepAliveMaxTimeout: timeoutMs,
  });
  return { pool, bodyTimeoutMs, target };
}

export interface ForwardOptions {
  /** The body the gateway has read already (see http/read-body.ts), sent as is. */
  body?: Buffer;
  /** Headers for the exact path sent upstream, such as the identity signed over it. */
  headersFor?: (path: string) => Record<string, string>;
  /** Runs when the service's answer arrives, before its head is written to the client. */
  onAnswer?: (status: number) => void;
}

export interface AnswerListener {
  /**
   * The service's answer head arrived; it is being passed on to the client. `ownFault`: a 5xx the
   * service marks as the request's doing, not its own failure (FAULT_HEADER).
   */
  answered(status: number, ownFault: boolean): void;
  /**
   * There will be no answer head: the connection failed, timed out or the request was cut — by the
   * caller ({@link Forwarded.abort}'s reason) or by the client going away ({@link CallerGoneError}).
   */
  failed(err: Error): void;
}

/** A request on its way to the service, or its answer on its way back. */
export interface Forwarded {
  /** Cuts it, whether it still waits for a connection or is under way. */
  abort(reason: Error): void;
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never the next one. The
 * request's body is sent with a length of its own; `Expect: 100-continue` was the gateway's to
 * answer, since it reads the whole body before forwarding.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/**
 * Sends the client's request to a service and the service's answer to the client: the client's
 * headers without the hop-by-hop ones, `X-Forwarded-For/-Port/-Proto/-Host` appended to (as a proxy
 * adds its hop), the extra headers signed over the path sent, the body read already. The service's
 * timeouts bound each of its silences: connecting (its name resolved included), the head, and each
 * piece of the answer's body.
 *
 * `listener` hears once: the answer's status, or the failure that leaves no answer. A service that
 * breaks off mid-answer cuts the client's answer too, so it never looks complete.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  service: ServicePool,
  { body, headersFor, onAnswer }: ForwardOptions,
  listener: AnswerListener,
): Forwarded {
  const path = outgoingPath(req.url ?? '/');
  const headers = outgoingHeaders(req);
  if (headersFor) Object.assign(headers, headersFor(path));
  if (body) headers['content-length'] = String(body.length);
  const method = req.method ?? 'GET';
  const span = upstreamSpan(req, service.target, headers);
  const relay = new Relay(res, listener, onAnswer, service.bodyTimeoutMs, span);
  // The client gone: its answer is nobody's any more.
  res.once('close', () => {
    if (!res.writableFinished) relay.abort(new CallerGoneError());
  });
  service.pool.dispatch({ method, path, headers, body: body ?? null }, relay);
  return relay;
}

/** One request's handler: the service's answer, piece by piece, to the client. */
class Relay implements Dispatcher.DispatchHandler, Forwarded {
  private controller: Dispatcher.DispatchController | null = null;
  private cut: Error | null = null;
  /** The listener heard its one word: the answer's status or the failure. */
  private told = false;
  /** The answer's head went to the client. */
  private answering = false;
  /** Runs out when the client leaves the answer unread too long. */
  private unread: NodeJS.Timeout | undefined = undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly listener: AnswerListener,
    private readonly onAnswer: ((status: number) => void) | undefined,
    /** How long the client may leave the answer unread, as the service may leave it unsent. */
    private readonly unreadTimeoutMs: number,
    /** The call's client span, while tracing is on (http/tracing.ts). */
    private readonly span: Span | null,
  ) {}

  abort(reason: Error): void {
    if (this.cut) return;
    this.cut = reason;
    clearTimeout(this.unread);
    this.fail(reason);
    // Still waiting for a connection: cut as soon as it gets one (onRequestStart).
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cut) controller.abort(this.cut);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    parsed: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    // An informational answer (1xx) is not the answer.
    if (status < 200 || this.told) return;
    this.told = true;
    this.answering = true;
    this.span?.setAttribute('http.response.status_code', status);
    if (status >= 500) this.span?.setStatus({ code: SpanStatusCode.ERROR });
    this.onAnswer?.(status);
    this.listener.answered(status, parsed[FAULT_HEADER] === REQUEST_FAULT);
    const res = this.res;
    res.statusCode = status;
    if (statusMessage) res.statusMessage = statusMessage;
    copyAnswerHeaders(controller.rawHeaders as (Buffer | string)[], res);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.res.write(chunk)) return;
    // The client reads slower than the service sends: the service waits (no body timeout while
    // paused) — but not for a client that stopped reading, which would hold its connection for good.
    controller.pause();
    if (this.unreadTimeoutMs > 0)
      this.unread = setTimeout(
        () => this.abort(new Error('the client stopped reading')),
        this.unreadTimeoutMs,
      );
    this.res.once('drain', () => {
      clearTimeout(this.unread);
      controller.resume();
    });
  }

  onResponseEnd(): void {
    this.res.end();
    this.span?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    clearTimeout(this.unread);
    // A service gone mid-answer: the client must not take a cut answer for a whole one.
    if (this.answering) {
      if (!this.res.destroyed) this.res.destroy();
      this.span?.setStatus({ code: SpanStatusCode.ERROR, message: err.message }).end();
    } else this.fail(err);
  }

  /** Tells the listener there will be no answer, unless it heard already. */
  private fail(err: Error): void {
    if (this.told) return;
    this.told = true;
    this.span?.setStatus({ code: SpanStatusCode.ERROR, message: err.message }).end();
    this.listener.failed(err);
  }
}

/**
 * The answer's headers as the service sent them, byte for byte (latin1, as node reads and writes
 * them), without the hop-by-hop ones; they replace any the gateway set under the same name, and a
 * name the service repeats (Set-Cookie) is repeated.
 */
function copyAnswerHeaders(raw: (Buffer | string)[], res: ServerResponse): void {
  const copied: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i]!).toLowerCase();
    if (HOP_BY_HOP.has(name) || name === FAULT_HEADER) continue;
    const value = latin1(raw[i + 1]!);
    if (copied.includes(name)) res.appendHeader(name, value);
    else {
      copied.push(name);
      res.setHeader(name, value);
    }
  }
}

const latin1 = (bytes: Buffer | string) => (typeof bytes === 'string' ? bytes : bytes.toString('latin1'));

/** The path and query as sent: a request in absolute form (`GET http://host/p`) keeps only those. */
function outgoingPath(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return '/';
  }
}

function outgoingHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const incoming: IncomingHttpHeaders = req.headers;
  const headers: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  // …and those the client's Connection header names as its own (RFC 9110 §7.6.1).
  const connection = incoming.connection;
  if (connection && connection !== 'keep-alive' && connection !== 'close')
    for (const token of connection.split(',')) delete headers[token.trim().toLowerCase()];
  const socket = req.socket;
  headers['x-forwarded-for'] = appended(incoming['x-forwarded-for'], socket.remoteAddress ?? '');
  headers['x-forwarded-port'] = appended(incoming['x-forwarded-port'], portOf(incoming.host));
  headers['x-forwarded-proto'] = appended(incoming['x-forwarded-proto'], 'http');
  headers['x-forwarded-host'] = String(incoming['x-forwarded-host'] || incoming.host || '');
  return headers;
}

/** The values of a header seen so far, with this hop's added (node joins repeated ones already). */
const appended = (before: string | string[] | undefined, hop: string) =>
  before ? `${String(before)},${hop}` : hop;

/** The port the client addressed, from its Host header (80 when it names none: plain HTTP). */
function portOf(host: string | undefined): string {
  const match = host ? /:(\d+)$/.exec(host) : null;
  return match ? match[1]! : '80';
}
