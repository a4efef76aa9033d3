import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PayloadTooLargeError, RequestTimeoutError } from '@community/contracts';
import { BODY_LIMIT, hasBody } from '@community/http-kit';

/**
 * A body the gateway refused (413) or gave up waiting for (408) is still read and thrown away, for
 * at most this long and this much, before the connection closes: closing with the client's bytes
 * unread resets the connection under a client still writing them, and it never reads the answer
 * (RFC 9112 §9.6). nginx's lingering close, bounded tighter.
 */
export const LINGER_MS = 2_000;
export const LINGER_BYTES = 1024 * 1024;

/** The client went away while sending: nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection while sending its body');
  }
}

/**
 * Reads the whole body before anything is forwarded, so a slow client costs the gateway a socket
 * and never an upstream's time (DESIGN.md §9): at most {@link BODY_LIMIT} bytes, within `timeoutMs`
 * of the headers. Either failure closes the connection, since the rest of the body is never used:
 * {@link endLingering} lets the client finish writing it first.
 * A request without a body (every GET) reads nothing and gives `undefined`.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  timeoutMs: number,
): Promise<Buffer | undefined> {
  if (!hasBody(req.headers)) return Promise.resolve(undefined);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT) {
    res.setHeader('Connection', 'close');
    return Promise.reject(new PayloadTooLargeError());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: Error | null) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!err) return resolve(Buffer.concat(chunks, size));
      if (!(err instanceof ClientGoneError)) {
        res.setHeader('Connection', 'close');
        req.pause();
      }
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) finish(new PayloadTooLargeError());
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onGone = () => finish(new ClientGoneError());
    const timer = setTimeout(
      () =>
        finish(new RequestTimeoutError(`the request body did not arrive within ${timeoutMs / 1000} seconds`)),
      timeoutMs,
    );
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}

/** Connections whose answer said they close: nothing more is served on them. */
const closing = new WeakSet<Socket>();

/**
 * Whether `req` came on a connection whose earlier answer said it closes: a request pipelined behind
 * a refused body, read while that body is. It must not run: its client, told the connection closes,
 * takes it as never sent and may send it again.
 */
export const behindClose = (req: IncomingMessage): boolean => closing.has(req.socket);

/**
 * Ends an answer sent before the request's body was all read: the answer goes out now, and the
 * connection closes once the client has sent the rest, or after {@link LINGER_MS} or
 * {@link LINGER_BYTES}, whichever comes first.
 */
export function endLingering(req: IncomingMessage, res: ServerResponse, payload?: string | Buffer): void {
  closing.add(req.socket);
  if (payload !== undefined) res.write(payload);
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) done();
  };
  const done = () => {
    clearTimeout(timer);
    req.off('data', onData).off('end', done).off('error', done).off('close', done);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(done, LINGER_MS);
  req.on('data', onData).once('end', done).once('error', done).once('close', done);
  req.resume();
}
