// The floor for a Node.js reverse proxy on the client the gateway forwards with: node:http server,
// undici's Pool (`dispatch`, keep-alive, as gateway/src/proxy/forward.ts) to the service, the
// answer's head written in one `writeHead` from its raw headers — no auth, no limits, no framework
// (and the one kept tick object every service keeps, bench/keep-tick-shape.mjs). `bench:gateway`
// runs it as the `undici` target: beside `node` it shows what the client alone is worth, beside the
// gateway what the gateway's own work costs.
// Usage: node bench/undici-proxy.mjs <listen port> <upstream port>
import http from 'node:http';
import process from 'node:process';
import { Pool } from 'undici';
import './keep-tick-shape.mjs';

const [port, upstreamPort] = process.argv.slice(2).map(Number);
const pool = new Pool(`http://127.0.0.1:${upstreamPort}`, { connections: 256, pipelining: 1 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

const failed = (res) => {
  if (res.headersSent) return res.destroy();
  res.writeHead(502, { 'content-type': 'application/json' });
  res.end('{"success":false,"error":{"code":"bad_gateway","message":"upstream failed"}}');
};

http
  .createServer((req, res) => {
    const headers = {};
    for (const name in req.headers) if (!HOP_BY_HOP.has(name)) headers[name] = req.headers[name];
    pool.dispatch(
      {
        method: req.method,
        path: req.url,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? null : req,
      },
      {
        onRequestStart() {},
        onResponseStart(controller, status) {
          if (status < 200) return;
          const raw = controller.rawHeaders;
          const head = [];
          for (let i = 0; i < raw.length; i += 2) {
            const name = raw[i].toString('latin1');
            if (!HOP_BY_HOP.has(name.toLowerCase())) head.push(name, raw[i + 1].toString('latin1'));
          }
          res.writeHead(status, head);
        },
        onResponseData(controller, chunk) {
          if (!res.write(chunk)) {
            controller.pause();
            res.once('drain', () => controller.resume());
          }
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError() {
          failed(res);
        },
      },
    );
  })
  .listen(port, '127.0.0.1');

// Exit on the bench's SIGTERM rather than die of it, so a --cpu-prof profile gets written.
process.on('SIGTERM', () => process.exit(0));
