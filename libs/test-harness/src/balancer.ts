import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { track } from './tcp-proxy';

export interface Balancer {
  port: number;
  url: string;
  /** Connections each target was given, in target order. */
  counts(): number[];
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/**
 * A round-robin TCP balancer on loopback in front of several replicas, standing in for a Kubernetes
 * Service: each new connection goes to the next target, and one a target refuses goes on to the
 * following one (as a Service stops sending to a pod that is gone). A connection stays with its
 * target for its life; when either side closes or dies, so does the other.
 */
export async function startBalancer(
  targets: { host?: string; port: number }[],
  /** The port to listen on (0: any free one). */
  listenPort = 0,
): Promise<Balancer> {
  if (targets.length === 0) throw new Error('a balancer needs at least one target');
  const live = new Set<net.Socket>();
  const given = targets.map(() => 0);
  let next = 0;

  const connect = (client: net.Socket, tries: number): void => {
    const index = next;
    next = (next + 1) % targets.length;
    const target = targets[index]!;
    const upstream = track(live, net.connect(target.port, target.host ?? HOST));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      given[index]!++;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.once('close', () => {
      if (!connected && tries + 1 < targets.length && !client.destroyed) connect(client, tries + 1);
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(live, client);
    connect(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://${HOST}:${port}`,
    counts: () => [...given],
    async stop() {
      for (const socket of live) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
