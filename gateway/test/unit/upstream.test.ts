import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@community/logging';
import { Upstream, type UpstreamOptions } from '../../src/proxy/upstream';

/**
 * Upstream on its own, between a real client and a fake service on loopback: what it sends, what it
 * passes back, and that its timeout bounds every wait — resolving and connecting included.
 */
const servers: http.Server[] = [];
const upstreams: Upstream[] = [];
afterEach(async () => {
  for (const upstream of upstreams.splice(0)) upstream.close();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A gateway-like front: every request proxied, a rejection answered 503 as the pipeline does. */
async function front(options: Partial<UpstreamOptions> & { target: string }) {
  const upstream = new Upstream({
    name: 'posts',
    timeoutMs: 2_000,
    stallMs: 60_000,
    logger: createLogger({ service: 'test', level: 'silent' }),
    ...options,
  });
  upstreams.push(upstream);
  return listen((req, res) => {
    upstream
      .proxy(req, res, {
        body: Buffer.from(''),
        headersFor: (path) => ({ 'x-signed-path': path }),
      })
      .catch((err: Error) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'service_unavailable', cause: err.message }));
      });
  });
}

describe('Upstream', () => {
  // DESIGN.md §21: a search that ran into its time limit is the request's cost, not the service
  // failing — one client sending costly searches must not open the breaker for everyone.
  it('does not count a 5xx the service marks as the request’s own, and drops the mark', async () => {
    const target = await listen((req, res) => {
      const own = req.url === '/own';
      res.writeHead(503, { 'content-type': 'application/json', ...(own ? { 'x-fault': 'request' } : {}) });
      res.end('{"error":"search_timeout"}');
    });
    const url = await front({ target });
    const upstream = upstreams.at(-1)!;
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${url}/own`);
      expect(res.status).toBe(503);
      expect(res.headers.get('x-fault')).toBeNull();
      await res.text();
    }
    expect(upstream.breaker.opened).toBe(false);
    // Beside the ten uncounted ones, more than half failing: open (breaker.ts).
    for (let i = 0; i < 25; i++) await (await fetch(`${url}/failing`)).text();
    expect(upstream.breaker.opened).toBe(true);
  });

  it('answers 503 within its timeout when the service name never resolves', async () => {
    // DNS that never answers leaves the socket connecting: a timeout set on the request alone
    // (http-proxy's proxyTimeout) starts only once connected, and the request would hang for good.
    const url = await front({ target: 'http://posts-service:3001', timeoutMs: 300, lookup: () => {} });
    const started = Date.now();
    const res = await fetch(`${url}/api/v1/posts/1`);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('answers 503 within its timeout when the service accepts and never answers', async () => {
    const service = await listen(() => {});
    const url = await front({ target: service, timeoutMs: 300 });
    const started = Date.now();
    expect((await fetch(`${url}/api/v1/posts/1`)).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('forwards the request with its hop added and no hop-by-hop headers, and passes the answer back', async () => {
    let seen: http.IncomingHttpHeaders = {};
    let seenUrl = '';
    const service = await listen((req, res) => {
      seen = req.headers;
      seenUrl = req.url ?? '';
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('keep-alive', 'timeout=1');
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-service': 'yes' });
      res.end('{"ok":true}');
    });
    const url = await front({ target: service });
    const port = new URL(url).port;
    const res = await new Promise<http.IncomingMessage & { text: string }>((resolve, reject) => {
      const req = http.request(
        `${url}/api/v1/posts?q=a%20b`,
        {
          method: 'POST',
          headers: {
            'x-forwarded-for': '203.0.113.9',
            connection: 'keep-alive, x-drop-me',
            te: 'trailers',
            'x-client': 'kept',
            'x-drop-me': 'named by Connection',
          },
        },
        (answer) => {
          let text = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (text += chunk));
          answer.on('end', () => resolve(Object.assign(answer, { text })));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(seenUrl).toBe('/api/v1/posts?q=a%20b');
    expect(seen['x-signed-path']).toBe('/api/v1/posts?q=a%20b');
    expect(seen['x-client']).toBe('kept');
    expect(seen['x-forwarded-for']).toBe('203.0.113.9,127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-port']).toBe(port);
    expect(seen['x-forwarded-host']).toBe(`127.0.0.1:${port}`);
    expect(seen['content-length']).toBe('0');
    expect(seen.te).toBeUndefined();
    expect(seen['x-drop-me']).toBeUndefined();
    expect(seen.connection).not.toContain('x-drop-me');
    expect(res.statusCode).toBe(201);
    expect(res.statusMessage).toBe('Made');
    expect(res.headers['x-service']).toBe('yes');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['keep-alive']).not.toBe('timeout=1');
    expect(res.text).toBe('{"ok":true}');
  });

  it('answers a client that asked to be told to continue, and does not pass that ask on', async () => {
    // The gateway has read the body by the time it forwards: the service has nothing to say to it.
    let seen: http.IncomingHttpHeaders = {};
    const service = await listen((req, res) => {
      seen = req.headers;
      res.writeHead(201).end('{}');
    });
    const url = await front({ target: service });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${url}/api/v1/posts`, {
        method: 'POST',
        headers: { expect: '100-continue', 'content-type': 'application/json', 'content-length': '2' },
      });
      req.once('continue', () => req.end('{}'));
      req.once('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      req.once('error', reject);
    });
    expect(status).toBe(201);
    expect(seen.expect).toBeUndefined();
  });

  it('never sends a request whose client left while it waited for a connection', async () => {
    const seen: string[] = [];
    const service = await listen((req, res) => {
      seen.push(req.url ?? '');
      setTimeout(() => res.end('{}'), 300);
    });
    const url = await front({ target: service, connections: 1 });
    const first = fetch(`${url}/api/v1/posts/1`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The one connection is busy: this one waits its turn, and its client gives up meanwhile.
    await expect(fetch(`${url}/api/v1/posts/2`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect((await first).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual(['/api/v1/posts/1']);
    expect((await fetch(`${url}/api/v1/posts/3`)).status).toBe(200);
    expect(seen).toEqual(['/api/v1/posts/1', '/api/v1/posts/3']);
  });

  it('holds the service back while the client does not read, rather than the answer in memory', async () => {
    // A client that never reads a large answer: what the gateway takes from the service must stop
    // at what the connections' buffers hold (tens of MiB on loopback at most), never the whole answer.
    const total = 128 * 1024 * 1024;
    let written = 0;
    const service = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
      const piece = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (written < total) {
          written += piece.length;
          if (!res.write(piece)) return;
        }
        res.end();
      };
      res.on('drain', pump);
      pump();
    });
    const url = await front({ target: service, timeoutMs: 5_000 });
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${url}/api/v1/posts/1`, resolve).on('error', reject),
    );
    answer.pause();
    // Until the service can get rid of nothing more.
    for (let before = -1; written !== before;) {
      before = written;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(written).toBeLessThan(48 * 1024 * 1024);
    // The client reads at last: the service goes on, and the whole answer arrives.
    let received = 0;
    answer.on('data', (chunk: Buffer) => (received += chunk.length));
    answer.resume();
    await new Promise((resolve) => answer.once('end', resolve));
    expect(received).toBe(total);
  });

  it('cuts a client that leaves the answer unread for its timeout, and frees the service', async () => {
    // Otherwise a client that stops reading would hold a connection to the service for good.
    let serviceGone: () => void = () => {};
    const freed = new Promise<void>((resolve) => (serviceGone = resolve));
    const service = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const piece = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (res.write(piece));
      };
      res.on('drain', pump);
      res.on('close', () => serviceGone());
      pump();
    });
    const url = await front({ target: service, timeoutMs: 300 });
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${url}/api/v1/posts/1`, resolve).on('error', reject),
    );
    answer.pause();
    const started = Date.now();
    const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, 3_000).unref());
    await Promise.race([freed, gaveUp]);
    expect(Date.now() - started).toBeLessThan(3_000);
    // Reading again, the client finds its answer cut short, never complete.
    answer.on('error', () => {});
    const cut = new Promise<boolean>((resolve) => answer.once('close', () => resolve(!answer.complete)));
    answer.resume();
    expect(await cut).toBe(true);
  });

  it('leaves a slow service alone when its probe goes unanswered but requests keep being answered', async () => {
    // A starved machine: every request is answered after 400 ms, /healthz not within the probe's time.
    const service = await listen((req, res) => {
      if (req.url === '/healthz') return;
      setTimeout(() => res.end('{}'), 400);
    });
    const url = await front({ target: service, stallMs: 300, timeoutMs: 5_000 });
    const statuses: Promise<number>[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push(fetch(`${url}/api/v1/posts/${i}`).then((res) => res.status));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await Promise.all(statuses)).toEqual(Array(15).fill(200));
  });

  it('cuts the client off when the service breaks off mid-answer, so a partial body never looks whole', async () => {
    const service = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const url = await front({ target: service });
    await expect(fetch(`${url}/api/v1/posts/1`).then((res) => res.text())).rejects.toThrow();
  });

  it('cuts the client off within its timeout when the service goes silent mid-answer, and only then', async () => {
    // Pieces 200 ms apart pass (the timeout bounds each silence, not the whole answer), then none.
    const service = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      let pieces = 0;
      const piece = setInterval(() => {
        res.write(' ');
        if (++pieces === 5) clearInterval(piece);
      }, 200);
    });
    const url = await front({ target: service, timeoutMs: 300 });
    const started = Date.now();
    await expect(fetch(`${url}/api/v1/posts/1`).then((res) => res.text())).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000 + 300);
    expect(Date.now() - started).toBeLessThan(1_000 + 1_500);
  });

  it('keeps its connections to the service across requests, and a silent idle one is not a failure', async () => {
    const sockets = new Set<unknown>();
    const service = await listen((req, res) => {
      sockets.add(req.socket);
      res.end('{}');
    });
    const url = await front({ target: service, timeoutMs: 300 });
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/api/v1/posts/1`)).status).toBe(200);
    expect(sockets.size).toBe(1);
    // Idle past the timeout: the connection is let go, and the next request opens another.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await fetch(`${url}/api/v1/posts/1`)).status).toBe(200);
    expect(sockets.size).toBe(2);
  });
});
