import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import { bornAs } from '@community/workarounds';

export interface RunningServer {
  server: http.Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes what is left. */
  close(graceMs?: number): Promise<void>;
  /**
   * A stop nobody notices (DESIGN.md §16): serves on for `delayMs` — `/readyz` says 503 meanwhile,
   * the caller's part — while load balancers stop sending new connections here, each answer closing
   * its connection so clients open their next one elsewhere; then `beforeClose` (end long-lived
   * answers) and {@link close}.
   */
  retire(delayMs: number, graceMs: number, beforeClose?: () => void): Promise<void>;
}

export async function listen(
  handler: RequestListener,
  port: number,
  host = '0.0.0.0',
): Promise<RunningServer> {
  // An express app's requests are born with its prototypes (see @community/workarounds).
  const server = http.createServer(bornAs(handler), handler);
  server.on('clientError', answerUnparseable);
  // Longer than any proxy's idle keep-alive, so the gateway never writes into a socket we are closing.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    server,
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}`,
    close: (graceMs = 10_000) => closeServer(server, graceMs),
    async retire(delayMs, graceMs, beforeClose) {
      // First, so it runs before the handler: a request arriving now is answered, on a closing connection.
      server.prependListener('request', closeAfterAnswer);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      beforeClose?.();
      await closeServer(server, graceMs);
    },
  };
}

/**
 * Idle keep-alive connections are what a server stopping must close, and closing one races the
 * client reusing it. Answered with `Connection: close`, a connection in use ends cleanly instead; one
 * idle for the whole delay was let go by the client (clients keep idle connections for less).
 */
function closeAfterAnswer(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('Connection', 'close');
}

function closeServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive socket turns idle when its last response ends: close those as they appear.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Requests Node's HTTP parser rejects never reach express; answer them in the JSON envelope too
 * instead of Node's bare `400 Bad Request`.
 */
function answerUnparseable(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (err.code === 'ECONNRESET' && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify(
    tooLarge
      ? { error: 'payload_too_large', message: 'the request headers are larger than 16 KiB' }
      : { error: 'bad_request', message: 'the request is not valid HTTP/1.1' },
  );
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
