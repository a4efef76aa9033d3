import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

// OTLP span kinds (the wire's enum, one above the API's).
const SERVER = 2;
const CLIENT = 3;

interface Exported {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** The OTLP/HTTP JSON receiver the gateway exports to: the outer edge of this test. */
const exported: Exported[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const { scopeSpans = [] } of body.resourceSpans ?? [])
      for (const { spans = [] } of scopeSpans)
        for (const span of spans)
          exported.push({
            ...span,
            attributes: Object.fromEntries(
              (span.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                a.key,
                a.value.stringValue ?? Number(a.value.intValue),
              ]),
            ),
          });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

/** The gateway's tracing in a process of its own (test/support/traced-listener.ts). */
let gateway: ChildProcess;
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  gateway = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(__dirname, '../support/traced-listener.ts')],
    {
      env: {
        PATH: process.env.PATH,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '20',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: gateway.stdout! }), 'line')) as [string];
  port = Number(/^listening (\d+)$/.exec(line)![1]);
}, 30_000);
afterAll(async () => {
  if (gateway.exitCode === null) {
    gateway.kill('SIGTERM');
    await once(gateway, 'exit');
  }
  await new Promise((resolve) => receiver.close(resolve));
});

async function get(headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/posts/7`, { headers });
  return (await res.json()) as {
    fields?: { trace_id: string; span_id: string };
    sent: { traceparent?: string; tracestate?: string };
  };
}

const spansOf = async (traceId: string, count: number) => {
  const deadline = Date.now() + 5_000;
  while (exported.filter((s) => s.traceId === traceId).length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return exported.filter((s) => s.traceId === traceId);
};

describe('the gateway traces each request by hand', () => {
  it('starts a trace when the client sends none: a server span and a client span the service continues', async () => {
    const { fields, sent } = await get();
    expect(fields).toEqual({
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const spans = await spansOf(fields!.trace_id, 2);
    const server = spans.find((s) => s.kind === SERVER)!;
    const client = spans.find((s) => s.kind === CLIENT)!;
    expect(server).toMatchObject({ spanId: fields!.span_id, name: 'GET /api/v1/posts/{id}' });
    expect(server.parentSpanId || undefined).toBeUndefined();
    expect(server.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/api/v1/posts/7',
      'url.scheme': 'http',
      'http.route': '/api/v1/posts/{id}',
      'http.response.status_code': 200,
    });
    expect(client.parentSpanId).toBe(server.spanId);
    expect(client.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': 3001,
      'http.response.status_code': 200,
    });
    expect(sent.traceparent).toBe(`00-${fields!.trace_id}-${client.spanId}-01`);
  });

  it("continues a client's sampled trace, and the service gets the gateway's span instead of the client's", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const { fields, sent } = await get({
      traceparent: `00-${traceId}-${parentId}-01`,
      tracestate: 'vendor=1',
    });
    expect(fields?.trace_id).toBe(traceId);
    const spans = await spansOf(traceId, 2);
    const server = spans.find((s) => s.kind === SERVER)!;
    const client = spans.find((s) => s.kind === CLIENT)!;
    expect(server.parentSpanId).toBe(parentId);
    expect(sent).toEqual({ traceparent: `00-${traceId}-${client.spanId}-01`, tracestate: 'vendor=1' });
  });

  it('exports no span of a client that says not sampled, and tells the service so', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const { sent } = await get({ traceparent: `00-${traceId}-${parentId}-00` });
    expect(sent.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    // A later, sampled request's spans are out: the earlier one's would be too.
    const { fields } = await get();
    await spansOf(fields!.trace_id, 2);
    expect(exported.filter((s) => s.traceId === traceId)).toEqual([]);
  });
});
