import http, {
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { LookupFunction } from 'node:net';

/** Where a service listens, and the connections to it. */
export interface ServiceAddress {
  hostname: string;
  port: number;
  agent: http.Agent;
  /** The silence after which the agent's connections time out (its `timeout` option), if any. */
  timeoutMs?: number;
  /** DNS for the service's name (tests stand in one that never answers). */
  lookup?: LookupFunction;
}

export interface ForwardOptions {
  /** The body the gateway has read already (see http/read-body.ts), sent as is. */
  body?: Buffer;
  /** Headers for the exact path sent upstream, such as the identity signed over it. */
  headersFor?: (path: string) => Record<string, string>;
  /** Runs when the service's answer arrives, before its head is written to the client. */
  onAnswer?: (status: number) => void;
}

export interface Exchange {
  /** The service's answer head arrived; it is being passed on to the client. */
  answered(status: number): void;
  /** There will be no answer head: the connection failed, timed out or the request was cut. */
  failed(err: Error): void;
}

/** Nothing came from the service within the timeout: not while connecting, not while waiting. */
export class UpstreamTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never the next one. The
 * request's body is sent with a length of its own.
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
]);

/**
 * Sends the client's request to a service and the service's answer to the client, on node:http
 * alone: the client's headers without the hop-by-hop ones, `X-Forwarded-For/-Port/-Proto/-Host`
 * appended to (as a proxy adds its hop), the extra headers signed over the path sent, the body read
 * already. The service's `timeoutMs` (its agent's connection timeout) bounds every silence of the
 * service's side, connecting and resolving its name included — a connection that hangs (a restarted
 * container's old address, DNS that never answers) would otherwise wait for the kernel's minutes —
 * and each piece of the answer's body.
 *
 * `exchange` hears once: the answer's status, or the failure that leaves no answer. A service that
 * breaks off mid-answer cuts the client's answer too, so it never looks complete.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  service: ServiceAddress,
  { body, headersFor, onAnswer }: ForwardOptions,
  exchange: Exchange,
): ClientRequest {
  const path = outgoingPath(req.url ?? '/');
  const headers = outgoingHeaders(req);
  if (headersFor) Object.assign(headers, headersFor(path));
  if (body) headers['content-length'] = String(body.length);

  let heard = false;
  const fail = (err: Error) => {
    if (heard) return;
    heard = true;
    exchange.failed(err);
  };
  const upstream = http.request({
    hostname: service.hostname,
    port: service.port,
    lookup: service.lookup,
    agent: service.agent,
    method: req.method,
    path,
    headers,
  });
  const { timeoutMs } = service;
  if (timeoutMs !== undefined)
    upstream.once('timeout', () => {
      const err = new UpstreamTimeoutError(`no answer within ${timeoutMs} ms`);
      fail(err);
      upstream.destroy(err);
    });
  upstream.on('error', fail);
  upstream.once('response', (answer) => {
    const status = answer.statusCode ?? 502;
    heard = true;
    onAnswer?.(status);
    exchange.answered(status);
    res.statusCode = status;
    if (answer.statusMessage) res.statusMessage = answer.statusMessage;
    const answerHeaders = answer.headers;
    for (const name in answerHeaders) {
      const value = answerHeaders[name];
      if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
    }
    // A service gone mid-answer: the client must not take a cut answer for a whole one.
    answer.once('close', () => {
      if (!answer.complete && !res.destroyed) res.destroy();
    });
    answer.pipe(res);
  });
  // The client gone: its answer is nobody's any more.
  res.once('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  upstream.end(body);
  return upstream;
}

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
