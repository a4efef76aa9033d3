import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { Pool, type Dispatcher } from 'undici';
import { FAULT_HEADER, REQUEST_FAULT } from '@community/http-kit';
import { upstreamSpan } from '../http/tracing';
import { CallerGoneError } from './breaker';
import { copyAnswerHeaders, outgoingHeaders, outgoingPath } from './headers';
import { maySendAgain } from './resend';

/** A service's pool of connections (undici's), which times the service, and its body timeout. */
export interface ServicePool {
  pool: Pool;
  /**
   * Connections used once each, for a request sent again (proxy/resend.ts): never one the service
   * may be closing. None for streams, which are never sent again.
   */
  fresh: Pool | null;
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
 * How long a connection may stay idle before the gateway lets it go: less than the SHUTDOWN_DELAY_MS
 * (5 s) a service stopping serves on before it closes its idle connections, so it never closes one
 * the gateway still holds (and may be reusing that very moment).
 */
export const IDLE_CONNECTION_MS = 2_000;

/**
 * A service's connections: kept alive while used, let go after {@link IDLE_CONNECTION_MS} idle.
 * A stream's connection is not kept at all: a stream is never sent again (proxy/resend.ts), so it
 * must not meet a connection its service is closing. `connect.timeout` bounds resolving the name and connecting:
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
  const idle = Math.min(timeoutMs, IDLE_CONNECTION_MS);
  const options = {
    connect: { timeout: timeoutMs, lookup },
    headersTimeout: timeoutMs,
    bodyTimeout: bodyTimeoutMs,
    keepAliveTimeout: idle,
    keepAliveMaxTimeout: idle,
  };
  const origin = new URL(target).origin;
  // pipelining 0: `Connection: close`, a new connection each time.
  const pool = new Pool(origin, { ...options, connections, pipelining: endless ? 0 : 1 });
  const fresh = endless ? null : new Pool(origin, { ...options, connections, pipelining: 0 });
  return { pool, fresh, bodyTimeoutMs, target };
}

export interface ForwardOptions {
  /** The body the gateway has read already (see http/read-body.ts), sent as is. */
  body?: Buffer;
  /** Headers for the exact path sent upstream, such as the identity signed over it. */
  headersFor?: (path: string) => Record<string, string>;
  /** Runs when the service's answer arrives, before its head is written to the client. */
  onAnswer?: (status: number) => void;
  /** Who sent the request (an account, a session, an address): waiting requests take turns by it. */
  caller?: string;
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
  const request = { method, path, headers, body: body ?? null };
  const relay = new Relay(res, listener, onAnswer, span, { service, request });
  // The client gone: its answer is nobody's any more.
  res.once('close', () => {
    if (!res.writableFinished) relay.abort(new CallerGoneError());
  });
  service.pool.dispatch(request, relay);
  return relay;
}

/** What a request was sent as and with, to send it again. */
interface Sending {
  service: ServicePool;
  request: Dispatcher.DispatchOptions & { method: string; headers: Record<string, string | string[]> };
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
  /** Bytes of the request went out (undici writes right after onRequestStart). */
  private written = false;
  /** A byte of the service's answer arrived, its head whole or not. */
  private answerBegan = false;
  private sentAgain = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly listener: AnswerListener,
    private readonly onAnswer: ((status: number) => void) | undefined,
    /** The call's client span, while tracing is on (http/tracing.ts). */
    private readonly span: Span | null,
    private readonly sending: Sending,
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
    this.written = true;
    if (this.cut) controller.abort(this.cut);
  }

  onResponseStarted(): void {
    this.answerBegan = true;
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
    // The client may leave the answer unread as long as the service may leave it unsent.
    const unreadTimeoutMs = this.sending.service.bodyTimeoutMs;
    if (unreadTimeoutMs > 0)
      this.unread = setTimeout(() => this.abort(new Error('the client stopped reading')), unreadTimeoutMs);
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
    } else if (!this.sendAgain(err)) this.fail(err);
  }

  /** DESIGN.md §16: once, on a new connection, when the rules of proxy/resend.ts allow it. */
  private sendAgain(err: Error): boolean {
    const { service, request } = this.sending;
    if (this.cut || this.sentAgain || this.answerBegan || !service.fresh) return false;
    if (!maySendAgain({ method: request.method, headers: request.headers, written: this.written }, err))
      return false;
    this.sentAgain = true;
    this.written = false;
    this.controller = null;
    this.span?.setAttribute('http.request.resend_count', 1);
    service.fresh.dispatch(request, this);
    return true;
  }

  /** Tells the listener there will be no answer, unless it heard already. */
  private fail(err: Error): void {
    if (this.told) return;
    this.told = true;
    this.span?.setStatus({ code: SpanStatusCode.ERROR, message: err.message }).end();
    this.listener.failed(err);
  }
}
