import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { EventEnvelope } from '@community/events';
import {
  frameLine,
  readFrames,
  signIdentity,
  STREAM_CHANNEL_PATH,
  STREAM_CHANNEL_PROTOCOL,
  type GatewayFrame,
} from '@community/http-kit';
import { actor, publishEvents, waitFor } from '@community/test-harness';
import { start } from '../../src/start';
import { content, type Member } from '../support/content-events';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// The gateway's channel to users-service (libs/http-kit/src/stream-channel.ts), spoken by hand: each
// stream on it is verified and served as its own request would be.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('stream-channel', { NOTIFICATION_HEARTBEAT_SECONDS: '1' });
});
afterAll(() => h.stop());

const STREAM_PATH = '/api/v1/notifications/stream';
const publish = (...events: EventEnvelope<unknown>[]) => publishEvents(h.exchange, events);

interface TestChannel {
  frames: Record<string, any>[];
  socket: Duplex;
  send(frame: GatewayFrame | string): void;
  /** The frames about stream `id` so far. */
  of(id: number): Record<string, any>[];
  /** Waits for a frame that matches. */
  next(match: (frame: Record<string, any>) => boolean, what: string): Promise<Record<string, any>>;
  closed: Promise<void>;
}

type Refused = { status: number; body: any };

/** Opens a channel as the gateway does; a refusal comes back as its status and body. */
function openChannel(
  url: string,
  headers: Record<string, string> = signIdentity(h.config.INTERNAL_TOKEN, {
    method: 'GET',
    url: STREAM_CHANNEL_PATH,
    actor: null,
  }),
  path = STREAM_CHANNEL_PATH,
): Promise<TestChannel | Refused> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, {
      agent: false,
      headers: { ...headers, Connection: 'Upgrade', Upgrade: STREAM_CHANNEL_PROTOCOL },
    });
    req.on('upgrade', (_res, socket, head) => {
      const frames: Record<string, any>[] = [];
      readFrames(socket, (frame) => frames.push(frame as Record<string, any>), 1 << 20, head);
      const channel: TestChannel = {
        frames,
        socket,
        send: (frame) => socket.write(typeof frame === 'string' ? frame : frameLine(frame)),
        of: (id) => frames.filter((f) => f.id === id),
        next: (match, what) => waitFor(() => frames.find(match), { what }),
        closed: new Promise((done) => socket.once('close', () => done())),
      };
      opened.push(channel);
      resolve(channel);
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const opened: TestChannel[] = [];
afterEach(() => {
  for (const channel of opened.splice(0)) channel.socket.destroy();
});

async function channelTo(url = h.url): Promise<TestChannel> {
  const channel = await openChannel(url);
  if ('status' in channel) throw new Error(`channel refused: ${channel.status}`);
  return channel;
}

/** The opening frame of `who`'s stream, as the gateway would sign it. */
function opening(id: number, who: Member, extra: Record<string, string> = {}): GatewayFrame {
  const headers = signIdentity(h.config.INTERNAL_TOKEN, { method: 'GET', url: STREAM_PATH, actor: who.as });
  return { open: id, url: STREAM_PATH, headers: { ...headers, ...extra } };
}

/** The notifications stream `id` carried so far. */
const notifications = (channel: TestChannel, id: number) =>
  channel
    .of(id)
    .filter((f) => typeof f.data === 'string' && f.data.includes('event: notification'))
    .map((f) => JSON.parse(/^data: (.*)$/m.exec(f.data)![1]!));

/** A gauge of users-service's /metrics. */
async function gauge(name: string, url = h.url): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return Number(line!.split(' ').pop());
}

const streamsOpen = () => gauge('notification_streams_open');

describe('the stream channel, at users-service', () => {
  it('refuses an upgrade without the gateway’s signature, or to anything but the channel, in the envelope', async () => {
    const forged = await openChannel(h.url, {
      'x-internal-timestamp': String(Math.floor(Date.now() / 1000)),
    });
    expect(forged).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    const elsewhere = await openChannel(h.url, undefined, STREAM_PATH);
    expect(elsewhere).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('opens a stream per opening, each with its own notifications, heartbeats and replay', async () => {
    const [me, them] = [await registerMember(h), await registerMember(h)];
    const channel = await channelTo();
    channel.send(opening(1, me));
    channel.send(opening(2, them));
    await channel.next((f) => f.id === 2 && f.data === ': open\n\n', 'the second stream open');
    expect(channel.of(1).slice(0, 2)).toEqual([
      { id: 1, status: 200 },
      { id: 1, data: ': open\n\n' },
    ]);
    await publish(content(them, { post_author: me }));
    await channel.next((f) => f.id === 1 && f.data?.includes('event: notification'), 'my notification');
    const [mine] = notifications(channel, 1);
    expect(mine).toMatchObject({ kind: 'reply', actor: { id: them.user.id } });
    await channel.next((f) => f.id === 2 && f.data === ': keep-alive\n\n', 'a heartbeat');
    expect(notifications(channel, 2)).toEqual([]);
    // Reconnected with Last-Event-ID one before it: replayed.
    channel.send(opening(3, me, { 'last-event-id': String(mine.id - 1) }));
    await channel.next((f) => f.id === 3 && f.data?.includes('event: notification'), 'the replay');
    expect(notifications(channel, 3).map((n) => n.id)).toEqual([mine.id]);
  });

  it('answers an opening it refuses with the error, in the envelope, and holds nothing', async () => {
    const me = await registerMember(h);
    const channel = await channelTo();
    const before = await streamsOpen();
    channel.send(opening(1, me, { 'last-event-id': 'abc' }));
    channel.send(opening(2, { ...me, as: actor(me.user.id, 'member', ['write']) }));
    // Signed for another path: not the gateway's word for this one.
    channel.send({ ...opening(3, me), url: '/api/v1/notifications' });
    const refusal = (id: number) => channel.next((f) => f.id === id && f.status, `refusal ${id}`);
    expect(await refusal(1)).toMatchObject({
      status: 400,
      body: { error: 'validation_error', details: { field: 'Last-Event-ID' } },
    });
    expect(await refusal(2)).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await refusal(3)).toMatchObject({ status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });
    expect(await streamsOpen()).toBe(before);
  });

  it('lets a stream go when the gateway closes it, and every stream when the channel goes', async () => {
    const me = await registerMember(h);
    const before = await streamsOpen();
    const channel = await channelTo();
    for (const id of [1, 2, 3]) channel.send(opening(id, me));
    await waitFor(async () => (await streamsOpen()) === before + 3 || undefined, { what: 'three streams' });
    channel.send({ close: 2 });
    await waitFor(async () => (await streamsOpen()) === before + 2 || undefined, { what: 'two streams' });
    channel.socket.destroy();
    await waitFor(async () => (await streamsOpen()) === before || undefined, { what: 'no stream' });
  });

  it('closes a channel that sends what is not a frame, and its streams with it', async () => {
    const me = await registerMember(h);
    const before = await streamsOpen();
    for (const garbage of [
      'not json\n',
      '{"open":"1"}\n',
      `{"close":1,"open":2}\n`,
      `${'x'.repeat(70_000)}`,
    ]) {
      const channel = await channelTo();
      channel.send(opening(1, me));
      await channel.next((f) => f.id === 1 && f.status === 200, 'the stream open');
      channel.send(garbage);
      await channel.closed;
    }
    await waitFor(async () => (await streamsOpen()) === before || undefined, { what: 'no stream' });
  });

  it('cuts off a gateway that stops reading its channel, and lets its streams go', async () => {
    const [me, them] = [await registerMember(h), await registerMember(h)];
    const before = await streamsOpen();
    const channel = await channelTo();
    const streams = 2_000;
    for (let id = 1; id <= streams; id++) channel.send(opening(id, me));
    await waitFor(async () => (await streamsOpen()) === before + streams || undefined, {
      what: 'the streams',
    });
    channel.socket.pause();
    // Each notification is ~1 MiB on the channel (one frame a stream): past 16 MiB and the kernel's buffers.
    for (let round = 0; round < 8; round++)
      await publish(...Array.from({ length: 5 }, () => content(them, { post_author: me })));
    await waitFor(async () => (await streamsOpen()) === before || undefined, {
      what: 'the streams let go',
      timeoutMs: 20_000,
    });
    expect(await gauge('notification_stream_channels_open')).toBe(0);
  });

  it('says goaway as it begins to stop, refuses new channels, then ends each stream and the channel', async () => {
    const other = await start({ ...h.config, USERS_SERVICE_PORT: 0, SHUTDOWN_DELAY_MS: 300 });
    const me = await registerMember(h);
    const channel = await channelTo(other.url);
    channel.send(opening(1, me));
    await channel.next((f) => f.id === 1 && f.status === 200, 'the stream open');
    const stopped = other.stop();
    await channel.next((f) => f.goaway, 'the goaway');
    // Still serving for SHUTDOWN_DELAY_MS, but no longer a place for new channels.
    expect(await openChannel(other.url)).toMatchObject({
      status: 503,
      body: { error: 'service_unavailable' },
    });
    const ending = Date.now();
    await channel.closed;
    expect(Date.now() - ending).toBeLessThan(1_000);
    await stopped;
    const goaway = channel.frames.findIndex((f) => f.goaway);
    expect(channel.frames.slice(goaway + 1).filter((f) => !f.data)).toEqual([{ id: 1, end: true }]);
  });
});
