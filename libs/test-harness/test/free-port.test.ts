import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort, freePorts } from '../src/free-port';

// Ports for the processes tests start come from below the kernel's ephemeral range, where
// `listen(0)` and outgoing connections never take theirs, so nothing else is handed one while it
// waits for its process to bind it.

const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

it('picks distinct free loopback ports below the ephemeral range', async () => {
  const ports = [...(await freePorts(20)), await freePort()];
  expect(new Set(ports.slice(0, 20)).size).toBe(20);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(ephemeralLow);
    await close(await listen(port));
  }
});

it('passes over a port that is taken', async () => {
  const taken = await listen(await freePort());
  const port = (taken.address() as net.AddressInfo).port;
  // The first pick lands on the taken port, the next anywhere.
  const random = jest
    .spyOn(Math, 'random')
    .mockReturnValueOnce((port - 10_000 + 0.5) / (ephemeralLow - 10_000));
  try {
    const picked = await freePort();
    expect(random).toHaveBeenCalledTimes(2);
    expect(picked).not.toBe(port);
  } finally {
    random.mockRestore();
    await close(taken);
  }
});
