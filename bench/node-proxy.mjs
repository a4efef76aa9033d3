// The floor for any Node.js reverse proxy on this machine: no auth, no limits, no framework —
// node:http server piping to node:http client with a keep-alive agent (and the one kept tick object
// every service keeps, bench/keep-tick-shape.mjs). `bench:gateway` runs it as
// the `node` target so the gateway's own cost can be told apart from Node's HTTP stack.
// Usage: node bench/node-proxy.mjs <listen port> <upstream port>
import http from 'node:http';
import process from 'node:process';
import './keep-tick-shape.mjs';

const [port, upstreamPort] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

http
  .createServer((req, res) => {
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"success":false,"error":{"code":"bad_gateway","message":"upstream failed"}}');
    });
    req.pipe(upstream);
  })
  .listen(port, '127.0.0.1');

// Exit on the bench's SIGTERM rather than die of it, so a --cpu-prof profile gets written.
process.on('SIGTERM', () => process.exit(0));
