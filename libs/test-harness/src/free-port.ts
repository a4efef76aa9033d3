import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Ports are picked at random below the kernel's ephemeral range, which is where `listen(0)` and
 * every outgoing connection take theirs. A port picked from that range and released until a child
 * process binds it could be handed to anyone else meanwhile (seen: a stack's users-service found its
 * port taken by another test file's process, and its gateway talked to another stack's
 * users-service); below it, only another pick can take it, out of thousands. Where the range leaves
 * too little room below it, ports come from `listen(0)` as before.
 */
const LOWEST = 10_000;
const ATTEMPTS = 50;

function pickRange(): [number, number] | null {
  let ephemeralLow = 32_768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (Number(low) > 0) ephemeralLow = Number(low);
  } catch {
    // not Linux: the usual range
  }
  return ephemeralLow - LOWEST >= 2_000 ? [LOWEST, ephemeralLow] : null;
}

const RANGE = pickRange();

function listenOn(port: number): Promise<net.Server | null> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** A listening server on a loopback port picked as above, held until the caller closes it. */
async function holdPort(): Promise<net.Server> {
  if (RANGE)
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const server = await listenOn(RANGE[0] + Math.floor(Math.random() * (RANGE[1] - RANGE[0])));
      if (server) return server;
    }
  const server = await listenOn(0);
  if (!server) throw new Error('no free loopback port');
  return server;
}

const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A loopback port that was free a moment ago (see above for who could take it first). */
export async function freePort(): Promise<number> {
  const server = await holdPort();
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

/** `count` distinct loopback ports that were free a moment ago: each is held until all are found. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await holdPort());
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map(close));
  }
}
