import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

import { freePort, startTcpProxy } from '../src';
import { resetOrDestroy } from '../src/tcp-proxy';
import type { TcpProxy } from '../src';

/** A server that echoes every byte back, standing in for a broker. */
async function startEchoServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

function echo(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (data) => resolve(data.toString()));
    socket.once('error', reject);
    socket.write(text);
  });
}

/** Resolves when the socket is closed by the other side; fails the test if it stays open. */
function closedWithin(socket: net.Socket, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.closed) return resolve();
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms}ms`)), ms);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('startTcpProxy', () => {
  let target: Awaited<ReturnType<typeof startEchoServer>>;
  let proxy: TcpProxy;
  beforeEach(async () => {
    target = await startEchoServer();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: target.port });
  });
  afterEach(async () => {
    await proxy.stop();
    await target.close();
  });

  it('forwards bytes both ways', async () => {
    const socket = await connect(proxy.port);

    expect(await echo(socket, 'hello through the proxy')).toBe('hello through the proxy');
    socket.destroy();
  });

  it('cut() breaks live connections and refuses new ones until restore()', async () => {
    const live = await connect(proxy.port);
    await echo(live, 'before');

    await proxy.cut();
    await closedWithin(live, 1000);

    const refused = net.connect(proxy.port, '127.0.0.1');
    refused.write('anyone there?');
    await closedWithin(refused, 1000);
    expect(refused.bytesRead).toBe(0);

    proxy.restore();
    const again = await connect(proxy.port);
    expect(await echo(again, 'after')).toBe('after');
    again.destroy();
  });

  it('rewrites the host and port of a service URL to point at itself', () => {
    expect(proxy.url('amqp://guest:guest@127.0.0.1:5672')).toBe(`amqp://guest:guest@127.0.0.1:${proxy.port}`);
    expect(proxy.url('redis://localhost:6379/2')).toBe(`redis://127.0.0.1:${proxy.port}/2`);
    expect(proxy.host).toBe('127.0.0.1');
  });

  it('drops the client when the target is down', async () => {
    await target.close();
    const socket = net.connect(proxy.port, '127.0.0.1');

    await closedWithin(socket, 1000);
  });
});

describe('resetOrDestroy', () => {
  // The proxy breaks every connection on cut() and stop(); one whose FIN was just sent must close too.
  it('closes a socket whose FIN is under way', async () => {
    const server = net.createServer();
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = net.connect({
      port: (server.address() as AddressInfo).port,
      host: '127.0.0.1',
      allowHalfOpen: true,
    });
    client.on('error', () => {});
    const socket = await accepted;
    socket.on('error', () => {});

    socket.end();
    await new Promise((resolve) => process.nextTick(resolve));
    const closed = once(socket, 'close', { signal: AbortSignal.timeout(1_000) });
    resetOrDestroy(socket);

    await closed;
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('freePort', () => {
  it('returns a port that can be listened on', async () => {
    const port = await freePort();
    const server = net.createServer();

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    expect((server.address() as AddressInfo).port).toBe(port);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
