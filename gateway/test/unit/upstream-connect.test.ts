import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { createLogger } from '@community/logging';
import { Upstream } from '../../src/proxy/upstream';

/**
 * A loopback port whose SYNs go unanswered, as the address of a container that is restarting: a
 * listener on a thread that never accepts, its accept queue filled (Linux then drops SYNs).
 */
async function unansweredPort(): Promise<{ port: number; close(): Promise<void> }> {
  const release = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const server = require('node:net').createServer();
     server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       while (Atomics.wait(workerData, 0, 0, 1000) === 'timed-out');
       server.close();
     });`,
    { eval: true, workerData: release },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  const fillers: net.Socket[] = [];
  // The kernel completes handshakes until the accept queue is full; the first that hangs shows it is.
  for (let connected = true; connected;) {
    const socket = net.connect(port, '127.0.0.1').on('error', () => {});
    fillers.push(socket);
    connected = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      setTimeout(() => resolve(false), 300);
    });
  }
  return {
    port,
    async close() {
      for (const socket of fillers) socket.destroy();
      Atomics.store(release, 0, 1);
      Atomics.notify(release, 0);
      await worker.terminate();
    },
  };
}

describe('a service address that takes no connection (SYNs unanswered)', () => {
  it('is answered 503 after timeoutMs: connecting counts too', async () => {
    const dead = await unansweredPort();
    const upstream = new Upstream({
      name: 'posts',
      target: `http://127.0.0.1:${dead.port}`,
      timeoutMs: 500,
      // The watchdog does not step in: another replica of the service keeps answering.
      stallMs: 60_000,
      logger: createLogger({ service: 'gateway', level: 'silent' }),
    });
    const front = http.createServer((req, res) => {
      upstream.proxy(req, res).catch(() => res.writeHead(503).end());
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${(front.address() as AddressInfo).port}/api/v1/posts`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect(res.status).toBe(503);
      expect(performance.now() - started).toBeLessThan(2_000);
      // No answer in time is the service's failure: the breaker counts it.
      expect(upstream.breaker.stats.failures).toBe(1);
    } finally {
      upstream.close();
      front.closeAllConnections();
      front.close();
      await dead.close();
    }
  });
});
