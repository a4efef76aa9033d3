import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';
import { breakerState } from '../support/raw-http';

/**
 * What the breaker counts (DESIGN.md §9): only what the service did. The misbehaving service is a
 * fake on loopback standing in for webhook-service — the outer edge of what the gateway talks to.
 */
let stack: Stack;
let key: string;
let fake: net.Server | undefined;
const sockets = new Set<net.Socket>();
beforeAll(async () => {
  stack = await startStack('gwupstream');
  ({ key } = await memberWithKey(stack, ['read', 'webhooks']));
});
afterAll(async () => {
  await closeFake();
  await stack.stop();
});

async function closeFake() {
  if (!fake) return;
  const server = fake;
  fake = undefined;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
}

/** Puts `server` on a free loopback port and the gateway in front of it as webhook-service. */
async function behindGateway(server: net.Server) {
  await closeFake();
  fake = server;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await stack.restartGateway({ WEBHOOK_SERVICE_URL: `http://127.0.0.1:${port}` });
}

const webhooks = () => gw(stack, 'GET', '/api/v1/webhooks', { key, undocumented: true });

describe('a service whose answer the gateway cannot parse', () => {
  it('is an upstream fault: 503 in the envelope, never a bare error', async () => {
    await behindGateway(
      net.createServer((socket) => {
        socket.on('error', () => {});
        socket.end(`HTTP/1.1 200 OK\r\nLink: <${'x'.repeat(20_000)}>\r\nContent-Length: 2\r\n\r\n{}`);
      }),
    );
    const res = await webhooks();
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: 'service_unavailable',
      message: 'the webhooks service did not answer',
    });
    expect(res.headers.get('retry-after')).toBe('5');
  });
});

describe('a service answering 5xx', () => {
  it('has its answers passed on, and counted: the breaker opens and the gateway answers 503 at once', async () => {
    let served = 0;
    await behindGateway(
      http.createServer((_req, res) => {
        served++;
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'internal_error', message: 'the fake broke' }));
      }),
    );
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await webhooks()).status);
    expect(statuses).toEqual([500, 500, 500, 500, 500, 503, 503, 503]);
    expect(served).toBe(5);
    expect(await breakerState(stack.gateway, 'webhooks')).toBe(2);
  });
});

describe('clients that give up while a healthy service is still answering', () => {
  it('are not the service failing: the breaker stays closed', async () => {
    await behindGateway(
      http.createServer((_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300);
      }),
    );
    for (let i = 0; i < 8; i++) {
      await expect(
        fetch(`${stack.gateway}/api/v1/webhooks`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(50),
        }),
      ).rejects.toThrow();
    }
    // Let the gateway see each abort and the fake finish its answers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await breakerState(stack.gateway, 'webhooks')).toBe(0);
    expect((await webhooks()).status).toBe(200);
  });
});
