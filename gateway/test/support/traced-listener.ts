// A process tracing as the gateway does (its own wiring, imported first as main.ts does), serving one
// stand-in for the gateway's request listener: its server span and its call to a service, as app.ts
// and proxy/forward.ts make them, answered with the headers the service would get. The OTLP
// exporter loads its transport with a dynamic import, which jest's module sandbox refuses: hence a
// process of its own (gateway/test/integration/tracing.test.ts).
import '../../src/tracing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopTracing } from '@community/telemetry';
import { serverSpan, upstreamSpan } from '../../src/http/tracing';

const server = http.createServer((req, res) => {
  const fields = serverSpan(req, res, '/api/v1/posts/7', () => '/api/v1/posts/{id}');
  const headers: Record<string, unknown> = { ...req.headers };
  const call = upstreamSpan(req, 'http://127.0.0.1:3001', headers);
  call?.setAttribute('http.response.status_code', 200);
  call?.end();
  const sent = { traceparent: headers.traceparent, tracestate: headers.tracestate };
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ fields, sent }));
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`),
);
process.once('SIGTERM', () => server.close(() => void stopTracing().then(() => process.exit(0))));
