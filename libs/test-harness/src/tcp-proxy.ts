import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  host: string;
  /** `template` (e.g. `amqp://guest:guest@127.0.0.1:5672`) with its host and port pointed at the proxy. */
  url(template: string): string;
  /** Breaks every live connection and refuses new ones until `restore()`: a simulated outage. */
  cut(): Promise<void>;
  /** Keeps every connection open but passes nothing either way until `restore()`: a hung server. */
  freeze(): void;
  restore(): void;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** A loopback TCP proxy to `target`, so a test can take a broker or Redis away from the code under test. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const clients = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  const pairs = new Map<net.Socket, net.Socket>();
  let refusing = false;
  let frozen = false;
  const flow = (client: net.Socket, upstream: net.Socket) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const server = net.createServer((client) => {
    track(clients, client);
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = track(upstreams, net.connect(target.port, target.host));
    pairs.set(client, upstream);
    if (!frozen) flow(client, upstream);
    client.once('close', () => {
      pairs.delete(client);
      upstream.destroy();
    });
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;

  async function breakAll(): Promise<void> {
    const closed = [...clients, ...upstreams].map(
      (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
    );
    // A reset, not a polite FIN: that is what clients see when a server dies mid-conversation.
    for (const client of clients) client.resetAndDestroy();
    for (const upstream of upstreams) upstream.destroy();
    await Promise.all(closed);
  }

  return {
    port,
    host: HOST,
    url(template) {
      const url = new URL(template);
      url.hostname = HOST;
      url.port = String(port);
      return url.toString();
    },
    async cut() {
      refusing = true;
      await breakAll();
    },
    freeze() {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream).pause();
        upstream.unpipe(client).pause();
      }
    },
    restore() {
      refusing = false;
      if (frozen) for (const [client, upstream] of pairs) flow(client, upstream);
      frozen = false;
    },
    async stop() {
      refusing = true;
      await breakAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Keeps `socket` in `live` until it closes; its errors (resets, refused upstream) just end it. */
export function track(live: Set<net.Socket>, socket: net.Socket): net.Socket {
  live.add(socket);
  socket.on('error', () => {});
  socket.once('close', () => live.delete(socket));
  return socket;
}
