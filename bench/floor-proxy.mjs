// The floor for a gateway that keeps this API's contract, in Node.js: bench/node-proxy.mjs plus only
// the work every proxied request must do whatever the code around it — and nothing else. Per request:
// the Bearer key's SHA-256 (keys are stored hashed) found in a Map standing in for the key cache; a
// request id; the identity signed with HMAC-SHA-256 over the path sent (DESIGN.md §3), added to the
// request with the X-Forwarded-* of a proxy hop; the answer passed on with the limit headers of both
// windows (DESIGN.md §6), X-Request-Id, Cache-Control and Vary. No Redis, breaker, timeouts,
// metrics, logs or error envelope: those are the gateway's own cost above this floor.
// `bench:gateway` runs it as the `floor` target beside the bare proxy and the gateway.
// Usage: node bench/floor-proxy.mjs <listen port> <upstream port> <internal token> <key> <user id>
import { createHash, createHmac, createSecretKey, randomUUID } from 'node:crypto';
import http from 'node:http';
import process from 'node:process';
import './keep-tick-shape.mjs';

const [port, upstreamPort] = process.argv.slice(2, 4).map(Number);
const [token, key, userId] = process.argv.slice(4);
const secret = createSecretKey(token, 'utf8');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const accounts = new Map([[sha256(key), { userId, role: 'member', scopes: 'read' }]]);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

http
  .createServer((req, res) => {
    if (req.url === '/healthz') return res.end('ok');
    const bearer = req.headers.authorization?.slice('Bearer '.length) ?? '';
    const account = accounts.get(sha256(bearer));
    if (!account) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end('{"success":false}');
    }
    const requestId = randomUUID();
    const ts = String(Math.floor(Date.now() / 1000));
    // As libs/http-kit's signIdentity signs it.
    const signed = ['v1', ts, req.method, req.url, account.userId, account.role, account.scopes, '127.0.0.1'];
    const headers = {};
    for (const name in req.headers) if (!HOP_BY_HOP.has(name)) headers[name] = req.headers[name];
    delete headers.authorization;
    Object.assign(headers, {
      'x-request-id': requestId,
      'x-forwarded-for': req.socket.remoteAddress,
      'x-forwarded-port': '80',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': req.headers.host ?? '',
      'x-internal-timestamp': ts,
      'x-internal-signature': createHmac('sha256', secret).update(signed.join('\n')).digest('base64url'),
      'x-internal-client-ip': '127.0.0.1',
      'x-user-id': account.userId,
      'x-user-role': account.role,
      'x-user-scopes': account.scopes,
    });
    const upstream = http.request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers, agent },
      (answer) => {
        const reset = Math.ceil(Date.now() / 3_600_000) * 3600;
        res.statusCode = answer.statusCode ?? 502;
        for (const name in answer.headers)
          if (!HOP_BY_HOP.has(name)) res.setHeader(name, answer.headers[name]);
        res.setHeader('X-Request-Id', requestId);
        res.setHeader('X-RateLimit-Limit', '100000000');
        res.setHeader('X-RateLimit-Remaining', '99999999');
        res.setHeader('X-RateLimit-Reset', String(reset));
        res.setHeader('RateLimit-Policy', '"hourly";q=100000000;w=3600, "daily";q=1000000000;w=86400');
        res.setHeader(
          'RateLimit',
          `"hourly";r=99999999;t=${reset - Math.ceil(Date.now() / 1000)}, "daily";r=999999999;t=86400`,
        );
        res.setHeader('Cache-Control', 'private, no-cache');
        res.setHeader('Vary', 'Authorization');
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"success":false}');
    });
    upstream.end();
  })
  .listen(port, '127.0.0.1');

// Exit on the bench's SIGTERM rather than die of it, so a --cpu-prof profile gets written.
process.on('SIGTERM', () => process.exit(0));
