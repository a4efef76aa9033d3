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

/** The proxy's connections and its mode, which `cut`, `freeze` and `restore` switch. */
interface ProxyState {
  clients: Set<net.Socket>;
  upstreams: Set<net.Socket>;
  /** Each live client's upstream. */
  pairs: Map<net.Socket, net.Socket>;
  refusing: boolean;
  frozen: boolean;
}

/** A loopback TCP proxy to `target`, so a test can take a broker or Redis away from the code under test. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const state: ProxyState = {
    clients: new Set(),
    upstreams: new Set(),
    pairs: new Map(),
    refusing: false,
    frozen: false,
  };
  // Without Nagle's algorithm on either leg, as the services connect: a proxy must not add its delays.
  const server = net.createServer({ noDelay: true }, (client) => accept(state, client, target));
  await listen(server);
  const { port } = server.address() as AddressInfo;
  return {
    port,
    host: HOST,
    url: (template) => pointAt(template, port),
    async cut() {
      state.refusing = true;
      await breakAll(state);
    },
    freeze() {
      state.frozen = true;
      for (const [client, upstream] of state.pairs) {
        client.unpipe(upstream).pause();
        upstream.unpipe(client).pause();
      }
    },
    restore() {
      state.refusing = false;
      if (state.frozen) for (const [client, upstream] of state.pairs) flow(client, upstream);
      state.frozen = false;
    },
    async stop() {
      state.refusing = true;
      await breakAll(state);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Pairs a new client with its own upstream connection, or resets it while the proxy refuses. */
function accept(state: ProxyState, client: net.Socket, target: { host: string; port: number }): void {
  track(state.clients, client);
  if (state.refusing) {
    client.resetAndDestroy();
    return;
  }
  const upstream = track(state.upstreams, net.connect({ ...target, noDelay: true }));
  state.pairs.set(client, upstream);
  if (!state.frozen) flow(client, upstream);
  client.once('close', () => {
    state.pairs.delete(client);
    upstream.destroy();
  });
  upstream.once('close', () => client.destroy());
}

function flow(client: net.Socket, upstream: net.Socket): void {
  client.pipe(upstream);
  upstream.pipe(client);
}

function listen(server: net.Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
}

function pointAt(template: string, port: number): string {
  const url = new URL(template);
  url.hostname = HOST;
  url.port = String(port);
  return url.toString();
}

async function breakAll({ clients, upstreams }: ProxyState): Promise<void> {
  const closed = [...clients, ...upstreams].map(
    (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
  );
  for (const client of clients) resetOrDestroy(client);
  for (const upstream of upstreams) upstream.destroy();
  await Promise.all(closed);
}

/**
 * A reset, not a polite FIN: that is what clients see when a server dies mid-conversation. A socket
 * already ending (its FIN under way) can only be destroyed: Node's resetAndDestroy() then fails with
 * EINVAL and never emits 'close', which left stop() waiting forever.
 */
export function resetOrDestroy(socket: net.Socket): void {
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}

/** Keeps `socket` in `live` until it closes; its errors (resets, refused upstream) just end it. */
export function track(live: Set<net.Socket>, socket: net.Socket): net.Socket {
  live.add(socket);
  socket.on('error', () => {});
  socket.once('close', () => live.delete(socket));
  return socket;
}
