/**
 * What one relayed Server-Sent Events stream costs a bare Node.js proxy, whatever the gateway adds
 * (DESIGN.md §18: ≤ 16 KiB of resident memory a stream a process). `npm run bench:stream-floor`,
 * loopback only, bounded: BENCH_STREAMS (3000) streams a way, BENCH_ROUNDS (2) rounds.
 *
 * An upstream process answers every request with an event stream (HTTP/1.1, h2c, a mux channel); a
 * proxy process relays each client's stream one way; this process opens the streams with raw sockets
 * and reads the proxy's memory (after two full GCs) before and after. The ways:
 * - none:   the proxy answers the stream itself (what Node's HTTP server holds a client: the floor);
 * - raw:    a plain socket to the upstream a stream, HTTP/1.0 so that the body is the socket's bytes;
 * - h2:     one HTTP/2 connection to the upstream, a stream on it each (multiplexed);
 * - undici: an undici Client a stream (a Pool with pipelining 0, as proxy/streams.ts does);
 * - mux:    one plain socket to the upstream for every stream, each stream's opening, closing and
 *           events a line of JSON with the stream's number (what a shared channel would cost).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import console from 'node:console';
import process from 'node:process';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { fetch, Pool } from 'undici';

const self = fileURLToPath(import.meta.url);
const [role, ...args] = process.argv.slice(2);
const EVENT_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-store' };

/** Answers every request with a comment now and a heartbeat every 5 s, on HTTP/1.1, h2c and mux. */
function upstream(h1Port, h2Port, muxPort) {
  const stream = (write, onClose) => {
    write(': hello\n\n');
    const timer = setInterval(() => write(': heartbeat\n\n'), 5000);
    onClose(() => clearInterval(timer));
  };
  http
    .createServer((req, res) => {
      res.writeHead(200, EVENT_HEAD);
      stream(
        (text) => res.write(text),
        (f) => res.on('close', f),
      );
    })
    .listen(Number(h1Port), '127.0.0.1');
  const h2 = http2.createServer();
  h2.on('stream', (s) => {
    s.respond({ ':status': 200, ...EVENT_HEAD });
    s.on('error', () => {});
    stream(
      (text) => s.write(text),
      (f) => s.on('close', f),
    );
  });
  h2.listen(Number(h2Port), '127.0.0.1');
  net
    .createServer((channel) => {
      const open = new Map();
      const send = (id) => (text) => channel.write(`${JSON.stringify({ id, data: text })}\n`);
      lines(channel, ({ open: id, close }) => {
        if (close !== undefined) {
          open.get(close)?.();
          return open.delete(close);
        }
        stream(send(id), (f) => open.set(id, f));
      });
      channel.on('error', () => {});
    })
    .listen(Number(muxPort), '127.0.0.1');
}

/** Calls `onLine` with each line of JSON that `socket` receives. */
function lines(socket, onLine) {
  let buffered = '';
  socket.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf('\n')) !== -1) {
      onLine(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
}

/** Relays each request's stream the way `way` says; `/memory` answers its memory after two GCs. */
function proxy(way, port, h1Port, h2Port, muxPort) {
  const pool = new Pool(`http://127.0.0.1:${h1Port}`, { connections: null, pipelining: 0, bodyTimeout: 0 });
  let session;
  let channel;
  const relayed = new Map();
  let lastId = 0;
  const ways = {
    none: (req, res) => res.writeHead(200, EVENT_HEAD).write(': hello\n\n'),
    raw: (req, res) => {
      const up = net.connect(Number(h1Port), '127.0.0.1');
      up.write(`GET ${req.url} HTTP/1.0\r\nhost: upstream\r\n\r\n`);
      let head = '';
      const onData = (chunk) => {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        up.off('data', onData);
        res.writeHead(Number(head.slice(9, 12)), EVENT_HEAD).write(head.slice(end + 4));
        up.pipe(res);
      };
      up.on('data', onData).on('error', () => res.destroy());
      res.on('close', () => up.destroy());
    },
    h2: (req, res) => {
      session ??= http2.connect(`http://127.0.0.1:${h2Port}`);
      const up = session.request({ ':path': req.url }).on('error', () => res.destroy());
      up.on('response', (head) => res.writeHead(head[':status'], EVENT_HEAD) && up.pipe(res));
      res.on('close', () => up.close());
    },
    mux: (req, res) => {
      if (!channel) {
        channel = net.connect(Number(muxPort), '127.0.0.1');
        lines(channel, ({ id, data }) => relayed.get(id)?.write(data));
      }
      const id = ++lastId;
      relayed.set(id, res.writeHead(200, EVENT_HEAD));
      channel.write(`${JSON.stringify({ open: id })}\n`);
      res.on('close', () => {
        relayed.delete(id);
        channel.write(`${JSON.stringify({ close: id })}\n`);
      });
    },
    undici: (req, res) =>
      pool.dispatch(
        { method: 'GET', path: req.url, headers: { host: 'upstream' } },
        {
          onRequestStart() {},
          onResponseStart: (_c, status) => res.writeHead(status, EVENT_HEAD),
          onResponseData: (_c, chunk) => res.write(chunk),
          onResponseEnd: () => res.end(),
          onResponseError: () => res.destroy(),
        },
      ),
  };
  http
    .createServer((req, res) => {
      if (req.url !== '/memory') return ways[way](req, res);
      globalThis.gc();
      globalThis.gc();
      res.end(JSON.stringify(process.memoryUsage()));
    })
    .listen(Number(port), '127.0.0.1', () => process.send('ready'));
}

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function main() {
  const streams = Number(process.env.BENCH_STREAMS ?? 3000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const ports = [await freePort(), await freePort(), await freePort()];
  const up = spawn(process.execPath, [self, 'upstream', ...ports], { stdio: 'inherit' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  console.log(`command: npm run bench:stream-floor, ${streams} streams a way, node ${process.version}`);
  try {
    for (let round = 1; round <= rounds; round++)
      for (const way of ['none', 'raw', 'h2', 'undici', 'mux']) {
        const port = await freePort();
        const child = spawn(process.execPath, ['--expose-gc', self, 'proxy', way, port, ...ports], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        await new Promise((resolve) => child.once('message', resolve));
        const memory = async () => (await fetch(`http://127.0.0.1:${port}/memory`)).json();
        const before = await memory();
        const sockets = [];
        for (let i = 0; i < streams; i++) sockets.push(await openStream(port, i));
        await new Promise((resolve) => setTimeout(resolve, 6000)); // a heartbeat through each
        const after = await memory();
        const kib = (k) => ((after[k] - before[k]) / streams / 1024).toFixed(1).padStart(5);
        console.log(
          `round ${round} ${way.padEnd(7)} RSS ${kib('rss')} KiB a stream, JS heap ${kib('heapUsed')}`,
        );
        for (const socket of sockets) socket.destroy();
        child.kill();
      }
  } finally {
    up.kill();
  }
}

/** A client's stream: a raw socket, resolved once the first bytes of the answer came. */
function openStream(port, i) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET /stream/${i} HTTP/1.1\r\nhost: proxy\r\n\r\n`),
    );
    socket
      .once('data', () => resolve(socket))
      .on('data', () => {})
      .once('error', reject);
  });
}

if (role === 'upstream') upstream(...args);
else if (role === 'proxy') proxy(...args);
else await main();
