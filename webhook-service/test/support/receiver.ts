import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (
  received: Received,
  index: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number };

/** A real local HTTP receiver that records every delivery and answers as told. */
export async function startReceiver(respond: Responder = () => ({ status: 204 })) {
  const received: Received[] = [];
  let responder = respond;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(entry);
      const { status, headers = {}, delayMs = 0 } = responder(entry, received.length - 1);
      setTimeout(() => {
        res.writeHead(status, headers);
        res.end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    respondWith(next: Responder) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
