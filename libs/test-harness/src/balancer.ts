import http from 'node:http';
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

/** How often each target's readiness is asked (a Kubernetes readiness probe, much faster). */
const READINESS_EVERY_MS = 150;

/**
 * A round-robin TCP balancer on loopback in front of several replicas, standing in for a Kubernetes
 * Service: each new connection goes to the next target, and one a target refuses goes on to the
 * following one (as a Service stops sending to a pod that is gone). A target whose `GET /readyz`
 * answers 503 (a process stopping, DESIGN.md §16) gets no new connection until it answers otherwise,
 * unless every target does. A connection stays with its target for its life; when either side
 * closes or dies, so does the other.
 */
export async function startBalancer(
  targets: { host?: string; port: number }[],
  /** The port to listen on (0: any free one). */
  listenPort = 0,
): Promise<Balancer> {
  if (targets.length === 0) throw new Error('a balancer needs at least one target');
  const live = new Set<net.Socket>();
  const given = targets.map(() => 0);
  const readiness = watchReadiness(targets);
  let next = 0;
  /** The next target in turn that is ready and not tried yet; any not tried when none is ready. */
  const pick = (tried: Set<number>): number => {
    const order = targets.map((_, i) => (next + i) % targets.length).filter((i) => !tried.has(i));
    const index = order.find((i) => readiness.ready[i]) ?? order[0]!;
    next = (index + 1) % targets.length;
    return index;
  };

  const connect = (client: net.Socket, tried: Set<number>): void => {
    const index = pick(tried);
    tried.add(index);
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
      if (!connected && tried.size < targets.length && !client.destroyed) connect(client, tried);
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(live, client);
    connect(client, new Set());
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
      readiness.stop();
      for (const socket of live) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Each target's readiness, asked every {@link READINESS_EVERY_MS}: only a 503 makes one unready. */
function watchReadiness(targets: { host?: string; port: number }[]) {
  const ready = targets.map(() => true);
  const asking = targets.map(() => false);
  const ask = (i: number) => {
    if (asking[i]) return;
    asking[i] = true;
    const { host = HOST, port } = targets[i]!;
    let settled = false;
    const done = (status?: number) => {
      if (settled) return;
      settled = true;
      asking[i] = false;
      // Refused or silent: the balancer's try-the-next covers a process that is gone.
      ready[i] = status !== 503;
    };
    const probe = http.get({ host, port, path: '/readyz', agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    probe.once('timeout', () => probe.destroy());
    probe.once('error', () => done());
  };
  const timer = setInterval(() => targets.forEach((_, i) => ask(i)), READINESS_EVERY_MS).unref();
  return { ready, stop: () => clearInterval(timer) };
}
