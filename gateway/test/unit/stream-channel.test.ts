import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { frameLine, readFrames, STREAM_CHANNEL_PROTOCOL, type ServiceFrame } from '@community/http-kit';
import { createLogger } from '@community/logging';
import { openEventStream, waitFor, type OpenedStream } from '@community/test-harness';
import { Upstream } from '../../src/proxy/upstream';

/**
 * The gateway's side of the stream channel (proxy/stream-channel.ts) between a real client and a
 * fake users-service on loopback: one that speaks the channel and is told what to send, and one of a
 * release before it.
 */
const servers: http.Server[] = [];
const upstreams: Upstream[] = [];
const streams: OpenedStream[] = [];
const sockets: Duplex[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const upstream of upstreams.splice(0)) upstream.close();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

async function listen(server: http.Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A gateway-like front: every request a stream of the service's, a rejection answered 503. */
async function front(target: string, timeoutMs = 2_000, extraHeaders: Record<string, string> = {}) {
  const upstream = new Upstream({
    name: 'users',
    target,
    timeoutMs,
    internalToken: 'a token',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  upstreams.push(upstream);
  return listen(
    http.createServer((req, res) => {
      const headersFor = (path: string) => ({ 'x-signed-path': path, ...extraHeaders });
      upstream.stream(req, res, { headersFor }).catch(() => {
        if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
      });
    }),
  );
}

async function open(url: string, path = '/stream') {
  const s = await openEventStream(url + path);
  streams.push(s);
  return s;
}

/** A channel as the fake service sees it: what the gateway sent, and a way to answer. */
interface FakeChannel {
  socket: Duplex;
  frames: Record<string, any>[];
  send(frame: ServiceFrame): void;
}

/** A stream's opening as users-service answers it: the head, and a first line (the head goes out with it). */
function answerOpen(channel: FakeChannel, id: number): void {
  channel.send({ id, status: 200 });
  channel.send({ id, data: ': open\n\n' });
}

/** users-service as far as the channel goes; `onOpen` answers each opening. */
async function channelService(onOpen = answerOpen) {
  const channels: FakeChannel[] = [];
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (_req, socket: Duplex) => {
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${STREAM_CHANNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
    );
    // An upgraded socket is no longer the server's to close: afterEach does.
    sockets.push(socket);
    const channel: FakeChannel = {
      socket,
      frames: [],
      send: (frame) => socket.write(frameLine(frame)),
    };
    channels.push(channel);
    readFrames(
      socket,
      (frame) => {
        channel.frames.push(frame as Record<string, any>);
        const { open: id } = frame as { open?: number };
        if (id) onOpen(channel, id);
      },
      1 << 20,
    );
  });
  return { url: await listen(server), channels };
}

const openings = (channel: FakeChannel) => channel.frames.filter((f) => f.open).map((f) => f.open as number);

describe('the stream channel, at the gateway', () => {
  it('opens every stream on one channel, with the identity signed over its path', async () => {
    const service = await channelService();
    const gateway = await front(service.url);
    const [a, b] = [await open(gateway, '/stream?a'), await open(gateway, '/stream?b')];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(service.channels).toHaveLength(1);
    const [channel] = service.channels;
    expect(channel!.frames).toEqual([
      { open: 1, url: '/stream?a', headers: { 'x-signed-path': '/stream?a' } },
      { open: 2, url: '/stream?b', headers: { 'x-signed-path': '/stream?b' } },
    ]);
    channel!.send({ id: 2, data: 'data: for b\n\n' });
    await b.next((e) => e.data === 'for b');
    expect(a.events).toEqual([{ comment: 'open' }]);
  });

  it('relays each stream on a connection of its own when the service refuses the channel', async () => {
    const asked: string[] = [];
    // A release before the channel: the upgrade is a request like any other, and this path is unknown.
    const server = http.createServer((req, res) => {
      asked.push(req.url!);
      if (req.url === '/stream')
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
      else res.writeHead(404).end();
    });
    const gateway = await front(await listen(server));
    for (let i = 0; i < 3; i++) await (await open(gateway)).next((e) => e.comment === 'open');
    // Asked once; the next ten seconds of streams go straight to the old way.
    expect(asked).toEqual(['/internal/stream-channel', '/stream', '/stream', '/stream']);
  });

  it('cuts a client that stops reading past 256 KiB, closes its stream there, and the others go on', async () => {
    const service = await channelService();
    const gateway = await front(service.url);
    const reading = await open(gateway);
    const { port } = new URL(gateway);
    const stalled = net.connect(Number(port), '127.0.0.1');
    stalled.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    stalled.pause();
    const channel = service.channels[0]!;
    await waitFor(() => openings(channel).length === 2 || undefined, { what: 'the second opening' });
    const piece = `data: ${'x'.repeat(64 * 1024)}\n\n`;
    // The kernel's buffers take some megabytes first; 64 MiB unread would be a gateway that never cuts.
    for (let sent = 0; !channel.frames.some((f) => f.close === 2); sent++) {
      if (sent > 1_024) throw new Error('the stalled client was never cut off');
      channel.send({ id: 2, data: piece });
      await new Promise((resolve) => setImmediate(resolve));
    }
    stalled.destroy();
    channel.send({ id: 1, data: 'data: still here\n\n' });
    await reading.next((e) => e.data === 'still here');
  });

  it('cuts its streams when the channel breaks, fails the one opening, and opens a new channel next', async () => {
    // Stream 2 gets no head: it is still opening when the channel breaks.
    const service = await channelService((channel, id) => {
      if (id === 1) answerOpen(channel, id);
    });
    const gateway = await front(service.url);
    const first = await open(gateway);
    const opening = open(gateway);
    await waitFor(() => openings(service.channels[0]!).length === 2 || undefined, {
      what: 'the second opening',
    });
    service.channels[0]!.socket.destroy();
    await first.ended;
    expect((await opening).status).toBe(503);
    const next = await openEventStream(`${gateway}/stream`);
    streams.push(next);
    expect(service.channels).toHaveLength(2);
    // Ids are the channel's own.
    expect(openings(service.channels[1]!)).toEqual([1]);
  });

  it('opens streams on a new channel once the service says goaway; those open stay on the old one', async () => {
    const service = await channelService();
    const gateway = await front(service.url);
    const before = await open(gateway);
    service.channels[0]!.send({ goaway: true });
    // Frames come in order: once this one arrived, so had the goaway.
    service.channels[0]!.send({ id: 1, data: 'data: old channel\n\n' });
    await before.next((e) => e.data === 'old channel');
    expect((await open(gateway)).status).toBe(200);
    expect(service.channels).toHaveLength(2);
    expect(openings(service.channels[1]!)).toEqual([1]);
  });

  it('answers 503 when no head comes within the timeout, and closes the stream there', async () => {
    const service = await channelService(() => {});
    const gateway = await front(service.url, 300);
    const started = Date.now();
    const refused = await open(gateway);
    expect(refused.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
    await waitFor(() => service.channels[0]!.frames.some((f) => f.close === 1) || undefined, {
      what: 'the close frame',
    });
  });

  it('lets a channel go that the service stopped reading, and opens the next stream on a new one', async () => {
    // The first channel's service hangs: it answers nothing, and soon reads nothing either.
    const service = await channelService((channel, id) => {
      if (channel !== service.channels[0]) answerOpen(channel, id);
    });
    const gateway = await front(service.url, 300, { 'x-padding': 'x'.repeat(60_000) });
    expect((await open(gateway)).status).toBe(503);
    service.channels[0]!.socket.pause();
    // Each opening is 60 KB: the kernel's buffers fill, then a MiB waits in the gateway.
    for (let round = 0; service.channels.length === 1; round++) {
      if (round > 20) throw new Error('the hung channel was never let go');
      await Promise.all(Array.from({ length: 20 }, () => open(gateway)));
    }
    expect((await open(gateway)).status).toBe(200);
  });

  it('answers 503 for a stream the service ends before its head, and writes nothing before it', async () => {
    const service = await channelService((channel, id) => {
      channel.send({ id, data: 'data: too soon\n\n' });
      channel.send({ id, end: true });
    });
    const gateway = await front(service.url);
    const res = await fetch(`${gateway}/stream`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('{}');
  });

  it('passes a refusal on with its status, headers and body, without the fault mark', async () => {
    const service = await channelService((channel, id) =>
      channel.send({
        id,
        status: 403,
        headers: { 'x-fault': 'request', 'WWW-Authenticate': 'Bearer' },
        body: { error: 'insufficient_scope', message: 'no' },
      }),
    );
    const gateway = await front(service.url);
    const res = await fetch(`${gateway}/stream`);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.has('x-fault')).toBe(false);
    expect(await res.json()).toEqual({ error: 'insufficient_scope', message: 'no' });
  });
});
