import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { createLogger } from '@community/logging';
import { maySendAgain } from '../../src/proxy/resend';
import { Upstream, type UpstreamOptions } from '../../src/proxy/upstream';

/**
 * DESIGN.md §16: the gateway sends a request again, once, on a new connection — any method when
 * none of it was written, only the idempotent ones and keyed POSTs when it was, never once any of
 * the answer came. Fake services on loopback close connections at each awkward moment.
 */
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const CASES: [string, Record<string, string>][] = [
  ['GET', {}],
  ['HEAD', {}],
  ['PUT', {}],
  ['DELETE', {}],
  ['POST', { 'idempotency-key': 'k-1' }],
  ['POST', {}],
  ['PATCH', {}],
];
const SENT_AGAIN_WHEN_WRITTEN = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST with a key'];
const label = (method: string, headers: Record<string, string>) =>
  method === 'POST' && headers['idempotency-key'] ? 'POST with a key' : method;

async function listening<S extends net.Server>(server: S, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(() => {
    (server as unknown as http.Server).closeAllConnections?.();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

/** A gateway-like front over one Upstream: the body read first, a rejection answered 503. */
async function front(
  options: Partial<UpstreamOptions> & { target: string },
  before?: () => Promise<void> | void,
) {
  const upstream = new Upstream({
    name: 'posts',
    timeoutMs: 2_000,
    stallMs: 60_000,
    logger: createLogger({ service: 'test', level: 'silent' }),
    ...options,
  });
  closers.push(() => upstream.close());
  const port = await listening(
    http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await before?.();
      upstream.proxy(req, res, { body: Buffer.concat(chunks) }).catch(() => res.writeHead(503).end());
    }),
  );
  return (method: string, headers: Record<string, string> = {}) =>
    send(`http://127.0.0.1:${port}/thing`, method, headers);
}

/** One request on a connection of its own; its status. */
function send(url: string, method: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{"a":1}' : undefined;
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** A service that answers 200 and counts what it acted on, by method. */
function countingService(onRequest?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean) {
  const acted: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      if (onRequest?.(req, res)) return;
      acted.push(req.method!);
      res.end('ok');
    });
  });
  return { server, acted };
}

describe('the rule (proxy/resend.ts)', () => {
  const lost = (code: string) => Object.assign(new Error(code), { code });
  it.each(CASES)('%s %j: any method when nothing was written', (method, headers) => {
    expect(maySendAgain({ method, headers, written: false }, lost('ECONNREFUSED'))).toBe(true);
    expect(maySendAgain({ method, headers, written: false }, lost('UND_ERR_SOCKET'))).toBe(true);
  });
  it.each(CASES)('%s %j: written, only the idempotent ones and keyed POSTs', (method, headers) => {
    const again = SENT_AGAIN_WHEN_WRITTEN.includes(label(method, headers));
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])
      expect(maySendAgain({ method, headers, written: true }, lost(code))).toBe(again);
  });
  it('never after a timeout: the service was there, and slow', () => {
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
      expect(maySendAgain({ method: 'GET', headers: {}, written: false }, lost(code))).toBe(false);
  });
});

describe('a connection refused (nothing written)', () => {
  it.each(CASES)('%s %j is sent again on a new connection and acted on once', async (method, headers) => {
    const { server, acted } = countingService();
    const port = await listening(server);
    // The first connection goes to an address nobody listens on (refused), the next to the service.
    let lookups = 0;
    const lookup = ((_host, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const address = lookups++ === 0 ? '127.0.0.2' : '127.0.0.1';
      if (options.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    }) as LookupFunction;
    const call = await front({ target: `http://service.test:${port}`, lookup });
    expect(await call(method, headers)).toBe(200);
    expect(acted).toEqual([method]);
  });
});

describe('a kept-alive connection the service closes just as the gateway reuses it', () => {
  it.each(CASES)(
    '%s %j: closed before the first byte went out, sent on a new one',
    async (method, headers) => {
      const sockets: net.Socket[] = [];
      const { server, acted } = countingService((req) => {
        sockets.push(req.socket);
        return false;
      });
      const port = await listening(server);
      let closeIdle = false;
      // The service closes its idle connection as the gateway picks it up again: its FIN is there
      // to be found before the request is written (one the kernel has not delivered yet is the case
      // below, where the request was written).
      const call = await front({ target: `http://127.0.0.1:${port}` }, async () => {
        if (!closeIdle) return;
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => setImmediate(resolve));
      });
      expect(await call('GET')).toBe(200);
      closeIdle = true;
      expect(await call(method, headers)).toBe(200);
      expect(acted).toEqual(['GET', method]);
    },
  );

  it.each(CASES)('%s %j: closed once the request arrived, unread', async (method, headers) => {
    // Raw HTTP: the first request on a connection is answered; a second one resets it unread.
    const acted: string[] = [];
    const server = net.createServer((socket) => {
      let served = false;
      socket.on('data', (chunk) => {
        if (served) return socket.resetAndDestroy();
        served = true;
        acted.push(chunk.toString('latin1').split(' ')[0]!);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=60\r\n\r\nok');
      });
      socket.on('error', () => {});
    });
    const port = await listening(server);
    const call = await front({ target: `http://127.0.0.1:${port}` });
    expect(await call('GET')).toBe(200);
    const again = SENT_AGAIN_WHEN_WRITTEN.includes(label(method, headers));
    expect(await call(method, headers)).toBe(again ? 200 : 503);
    // Sent again, it was acted on once, on the new connection; not sent again, never.
    expect(acted).toEqual(again ? ['GET', method] : ['GET']);
  });
});

describe('a service that closes the connection after reading the request', () => {
  it.each(CASES)('%s %j', async (method, headers) => {
    let first = true;
    const { server, acted } = countingService((req) => {
      if (!first) return false;
      first = false;
      req.socket.destroy();
      return true;
    });
    const port = await listening(server);
    const call = await front({ target: `http://127.0.0.1:${port}` });
    const again = SENT_AGAIN_WHEN_WRITTEN.includes(label(method, headers));
    expect(await call(method, headers)).toBe(again ? 200 : 503);
    expect(acted).toEqual(again ? [method] : []);
  });

  it('is never sent again once a byte of the answer came', async () => {
    let seen = 0;
    const server = net.createServer((socket) => {
      socket.once('data', () => {
        seen++;
        socket.end('HTTP/1.1 200 OK\r\nContent-Le');
      });
      socket.on('error', () => {});
    });
    const port = await listening(server);
    const call = await front({ target: `http://127.0.0.1:${port}` });
    expect(await call('GET')).toBe(503);
    expect(seen).toBe(1);
  });
});
