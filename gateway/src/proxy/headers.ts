import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { FAULT_HEADER } from '@community/http-kit';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never the next one. The
 * request's body is sent with a length of its own; `Expect: 100-continue` was the gateway's to
 * answer, since it reads the whole body before forwarding.
 */
export const HOP_BY_HOP = new Set([
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
 * The answer's headers as the service sent them, byte for byte (latin1, as node reads and writes
 * them), without the hop-by-hop ones; they replace any the gateway set under the same name, and a
 * name the service repeats (Set-Cookie) is repeated.
 */
export function copyAnswerHeaders(raw: (Buffer | string)[], res: ServerResponse): void {
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
export function outgoingPath(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return '/';
  }
}

export function outgoingHeaders(req: IncomingMessage): Record<string, string | string[]> {
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
