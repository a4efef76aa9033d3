import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sendWebhook } from '../../src/delivery/sender';
import type { SendInput } from '../../src/domain/outbound';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  connections: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:0 that records what reached it before `handler` answers. */
async function startReceiver(handler: Handler = (_req, res) => res.end('ok')): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handler(req, res);
    });
  });
  const receiver = { received, connections: 0 } as Receiver;
  server.on('connection', () => (receiver.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks/in?tenant=1`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('sendWebhook', () => {
  const receivers: Receiver[] = [];
  const receiver = async (handler?: Handler) => {
    const started = await startReceiver(handler);
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  const input = (url: string, overrides: Partial<SendInput> = {}): SendInput => ({
    url,
    messageId: 'msg_2b1f0c9e',
    body: '{"event":"post.created","timestamp":"2025-01-01T00:00:00.000Z","data":{"id":"p1","title":"Zoë ✓"}}',
    secrets: [newSecret()],
    allowPrivate: true,
    ...overrides,
  });

  it('delivers the body byte for byte with Standard Webhooks headers', async () => {
    const target = await receiver();
    const sent = input(target.url, { timestampSeconds: Math.floor(Date.now() / 1000) - 5 });

    const result = await sendWebhook(sent);

    expect(result).toMatchObject({
      ok: true,
      status: 200,
      error: null,
      gone: false,
      retryAfterSeconds: null,
    });
    const [delivery] = target.received;
    expect(delivery?.body).toBe(sent.body);
    expect(delivery?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'CommunityPlatform-Webhooks/1.0',
      'webhook-id': 'msg_2b1f0c9e',
      'webhook-timestamp': String(sent.timestampSeconds),
    });
    expect(delivery?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(
      new Webhook(sent.secrets[0]!).verify(delivery!.body, delivery!.headers as Record<string, string>),
    ).toEqual(JSON.parse(sent.body));
  });

  it('signs with both secrets during a rotation, so either one verifies', async () => {
    const target = await receiver();
    const [oldSecret, newSecretValue] = [newSecret(), newSecret()];

    await sendWebhook(input(target.url, { secrets: [newSecretValue, oldSecret] }));

    const delivery = target.received[0]!;
    const headers = delivery.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(delivery.body, headers)).not.toThrow();
    expect(() => new Webhook(newSecretValue).verify(delivery.body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(delivery.body, headers)).toThrow();
  });

  it('counts any 2xx as success', async () => {
    const target = await receiver((_req, res) => res.writeHead(204).end());

    await expect(sendWebhook(input(target.url))).resolves.toMatchObject({ ok: true, status: 204 });
  });

  it('reports a 500 as a failure with its status', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('boom'));

    const result = await sendWebhook(input(target.url));

    expect(result).toMatchObject({ ok: false, status: 500, gone: false, error: 'unexpected status 500' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('flags a 410 as gone', async () => {
    const target = await receiver((_req, res) => res.writeHead(410).end());

    await expect(sendWebhook(input(target.url))).resolves.toMatchObject({
      ok: false,
      status: 410,
      gone: true,
    });
  });

  it('reads Retry-After on a 429', async () => {
    const target = await receiver((_req, res) => res.writeHead(429, { 'retry-after': '7' }).end());

    await expect(sendWebhook(input(target.url))).resolves.toMatchObject({
      ok: false,
      status: 429,
      retryAfterSeconds: 7,
    });
  });

  it('ignores Retry-After on statuses that do not ask for back-off', async () => {
    const target = await receiver((_req, res) => res.writeHead(500, { 'retry-after': '7' }).end());

    await expect(sendWebhook(input(target.url))).resolves.toMatchObject({ retryAfterSeconds: null });
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await receiver();
    const target = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end());

    const result = await sendWebhook(input(target.url));
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect not followed (3xx)' });
    expect(elsewhere.connections).toBe(0);
  });

  it('gives up on a slow receiver at the timeout', async () => {
    const target = await receiver((_req, res) => {
      const timer = setTimeout(() => res.end('late'), 3000);
      res.on('close', () => clearTimeout(timer));
    });
    const started = Date.now();

    const result = await sendWebhook(input(target.url, { timeoutMs: 500 }));

    // Well before the receiver's answer at 3 s, with room for a busy machine.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 500 ms', timedOut: true });
    expect(result.durationMs).toBeGreaterThanOrEqual(500);
  });

  it('keeps a status that came in time but says the attempt timed out when the body never ended', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('still going');
    });

    const result = await sendWebhook(input(target.url, { timeoutMs: 500 }));

    // A success for the delivery, but the attempt held its slot to the end: not an answer in time.
    expect(result).toMatchObject({ ok: true, status: 200, timedOut: true });
  });

  it('reports a refused connection briefly', async () => {
    const target = await receiver();
    await target.close();

    await expect(sendWebhook(input(target.url))).resolves.toMatchObject({
      ok: false,
      status: null,
      error: 'connect ECONNREFUSED',
    });
  });

  it.each([
    ['an IP literal', (port: number) => `http://127.0.0.1:${port}/`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/`],
  ])('refuses %s before connecting unless private networks are allowed', async (_case, urlFor) => {
    const target = await receiver();

    const result = await sendWebhook(input(urlFor(target.port), { allowPrivate: false }));

    expect(result).toMatchObject({
      ok: false,
      status: null,
      error: 'forbidden destination (private address)',
    });
    expect(target.connections).toBe(0);
  });

  it('stops reading a huge response after 64 KiB', async () => {
    let wroteEverything: Promise<boolean> = Promise.resolve(true);
    const target = await receiver((_req, res) => {
      wroteEverything = streamBytes(res, 10 * 1024 * 1024);
    });

    const result = await sendWebhook(input(target.url));

    expect(result).toMatchObject({ ok: true, status: 200 });
    await expect(wroteEverything).resolves.toBe(false);
  });
});

/** Writes `total` bytes with back-pressure; resolves whether all of them left before the peer hung up. */
function streamBytes(res: http.ServerResponse, total: number): Promise<boolean> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let remaining = total;
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
  const pump = () => {
    while (remaining > 0 && !res.destroyed) {
      remaining -= chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
  return new Promise((resolve) => res.on('close', () => resolve(res.writableFinished)));
}
