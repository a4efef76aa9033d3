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

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A test file's receiver factory: every receiver it starts is closed after all the file's tests. */
export function receiversClosedAfterAll(): (respond?: Responder) => Promise<Receiver> {
  const open: Receiver[] = [];
  afterAll(() => Promise.all(open.map((r) => r.close())));
  return async (respond) => {
    const r = await startReceiver(respond);
    open.push(r);
    return r;
  };
}
