import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openEventStream, waitFor } from '@community/test-harness';
import { expectStatus } from '../../src/client/http';
import { createPost, subscribe } from '../../src/flows';
import { OtlpReceiver, type ReceivedSpan } from '../../src/otlp-receiver';
import { openOwnedTarget, type Target } from '../../src/target';
import type { OwnedStack } from '../../src/stack/owned-stack';
import { UNLIMITED, type Member } from '../../src/world';

// OTLP span kinds (the wire's enum, one above the API's).
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

let otlp: OtlpReceiver;
let target: Target & { owned: OwnedStack };
let member: Member;
let categoryId: number;

beforeAll(async () => {
  otlp = await OtlpReceiver.start();
  target = await openOwnedTarget('traces', {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'info',
    },
  });
  member = await target.world.member({ plan: UNLIMITED });
  categoryId = await target.world.category();
}, 120_000);
afterAll(async () => {
  await target?.close();
  await otlp?.close();
}, 60_000);

const newTrace = () => ({
  traceId: randomBytes(16).toString('hex'),
  parentId: randomBytes(8).toString('hex'),
});
const traceparent = (trace: { traceId: string; parentId: string }, flags: '00' | '01') =>
  `00-${trace.traceId}-${trace.parentId}-${flags}`;

/** The gateway's call to a service (its only client spans: its Redis calls are not spans). */
const upstreamCall = (s: ReceivedSpan) =>
  s.service === 'gateway' && s.kind === CLIENT && 'server.address' in s.attributes;

const isSql = (s: ReceivedSpan) => s.attributes['db.system.name'] === 'postgresql';

const one = (spans: ReceivedSpan[], what: string, match: (span: ReceivedSpan) => boolean) => {
  const found = spans.filter(match);
  if (found.length === 0)
    throw new Error(`no ${what} among ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
  return found[0]!;
};

describe('one trace from the client to the webhook receiver', () => {
  it('a POST carries the client trace through gateway, posts-service, the broker and each delivery attempt', async () => {
    const { world, receiver } = target;
    const as = world.as(member);
    await subscribe(as, receiver, 'traced', ['post.created']);
    const trace = newTrace();
    const res = await as('POST', '/api/v1/posts', {
      body: { title: 'A traced post', content: 'Followed from end to end', category_id: categoryId },
      headers: { traceparent: traceparent(trace, '01') },
    });
    expectStatus(res, 201);

    // Spans arrive in each process's batches: wait for the attempt and for every parent of each.
    const complete = () => {
      const spans = otlp.inTrace(trace.traceId);
      const ids = new Set([trace.parentId, ...spans.map((span) => span.spanId)]);
      return spans.some((s) => s.name === 'webhook attempt') && spans.every((s) => ids.has(s.parentSpanId));
    };
    await waitFor(complete, { timeoutMs: 20_000, what: 'the trace down to the delivery attempt' });
    const spans = otlp.inTrace(trace.traceId);
    for (const service of ['gateway', 'posts-service', 'webhook-service'])
      expect(spans.some((span) => span.service === service)).toBe(true);

    // The gateway continues the client's span; every other span's parent is in the trace.
    const edge = one(spans, 'gateway server span', (s) => s.service === 'gateway' && s.kind === SERVER);
    expect(edge.name).toBe('POST /api/v1/posts');
    expect(edge.parentSpanId).toBe(trace.parentId);
    expect(edge.attributes['http.response.status_code']).toBe(201);
    const ids = new Set(spans.map((span) => span.spanId));
    const orphans = spans.filter((s) => s !== edge && !ids.has(s.parentSpanId));
    expect(orphans.map((s) => `${s.service} ${s.name} ${s.kind}`)).toEqual([]);

    const call = one(spans, 'gateway client span', upstreamCall);
    const served = one(
      spans,
      'posts-service server span',
      (s) => s.service === 'posts-service' && s.kind === SERVER,
    );
    expect(call.parentSpanId).toBe(edge.spanId);
    expect(served.parentSpanId).toBe(call.spanId);
    expect(served.name).toBe('POST /api/v1/posts');

    const attempt = one(spans, 'delivery attempt', (s) => s.name === 'webhook attempt');
    expect(attempt.service).toBe('webhook-service');
    expect(attempt.attributes).toMatchObject({ 'webhook.attempt': 1, 'webhook.outcome': 'success' });
    expect(attempt.attributes['webhook.endpoint.id']).toEqual(expect.any(Number));

    // The receiver is never sent the trace.
    const delivered = receiver.received.filter((r) => r.endpoint === 'traced');
    expect(delivered.length).toBeGreaterThan(0);
    for (const { headers } of delivered) {
      expect(headers.traceparent).toBeUndefined();
      expect(headers.tracestate).toBeUndefined();
    }
  });

  it('a GET shows the gateway server and client spans, the service span and its SQL', async () => {
    const as = target.world.as(member);
    const post = await createPost(as, categoryId);
    const trace = newTrace();
    expectStatus(
      await as('GET', `/api/v1/posts/${post.id}`, { headers: { traceparent: traceparent(trace, '01') } }),
      200,
    );
    // Each process exports in its own batches: wait for the gateway's spans and the service's SQL.
    await waitFor(
      () => {
        const spans = otlp.inTrace(trace.traceId);
        return (
          spans.some((s) => s.attributes['db.system.name'] === 'postgresql') &&
          spans.some((s) => s.service === 'gateway' && s.kind === SERVER) &&
          spans.some(upstreamCall)
        );
      },
      { timeoutMs: 10_000, what: 'the gateway spans and the SQL spans' },
    );
    const spans = otlp.inTrace(trace.traceId);
    const edge = one(spans, 'gateway server span', (s) => s.service === 'gateway' && s.kind === SERVER);
    expect(edge.name).toBe('GET /api/v1/posts/{id}');
    expect(edge.attributes['http.route']).toBe('/api/v1/posts/{id}');
    one(spans, 'gateway client span', upstreamCall);
    const served = one(spans, 'service span', (s) => s.service === 'posts-service' && s.kind === SERVER);
    expect(served.attributes['http.route']).toBe('/api/v1/posts/:id');
    expect(served.attributes['http.response.status_code']).toBe(200);
    const sql = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) {
      expect(span.service).toBe('posts-service');
      expect(span.attributes).toMatchObject({
        'db.namespace': 'posts',
        'db.operation.name': expect.any(String),
      });
      expect(span.name).toMatch(/^[A-Z]+( [a-z_.]+)?$/);
    }
  });

  it('a notification stream opened on the channel is a users-service span of the trace, its replay SQL in it', async () => {
    const trace = newTrace();
    const stream = await openEventStream(`${target.baseUrl}/api/v1/notifications/stream`, {
      authorization: `Bearer ${member.key}`,
      traceparent: traceparent(trace, '01'),
      'last-event-id': '0',
    });
    try {
      expect(stream.status).toBe(200);
      const served = (s: ReceivedSpan) => s.service === 'users-service' && s.kind === SERVER;
      await waitFor(
        () => {
          const spans = otlp.inTrace(trace.traceId);
          return spans.some(served) && spans.some(upstreamCall) && spans.some(isSql);
        },
        { timeoutMs: 10_000, what: "the gateway's call, users-service's span and its SQL" },
      );
      const spans = otlp.inTrace(trace.traceId);
      const call = one(spans, 'gateway client span', upstreamCall);
      const opening = one(spans, 'users-service server span', served);
      expect(opening.name).toBe('GET /api/v1/notifications/stream');
      expect(opening.parentSpanId).toBe(call.spanId);
      expect(opening.attributes['http.response.status_code']).toBe(200);
      for (const sql of spans.filter(isSql)) expect(sql.parentSpanId).toBe(opening.spanId);
    } finally {
      stream.close();
    }
  });

  it("a key revoked in a trace: the gateway's cache invalidation is a span of it, and no Redis call is", async () => {
    const as = target.world.as(member);
    const created = expectStatus(
      await as('POST', '/api/v1/keys', { body: { name: 'traced revocation', scopes: ['read'] } }),
      201,
    );
    const trace = newTrace();
    expectStatus(
      await as('DELETE', `/api/v1/keys/${created.body.data.id}`, {
        headers: { traceparent: traceparent(trace, '01') },
      }),
      200,
    );
    const consumed = (s: ReceivedSpan) => s.service === 'gateway' && s.kind === CONSUMER;
    // Each process exports on its own schedule: the consumer's span may arrive before its parent,
    // users-service's publish.
    const withParent = () => {
      const spans = otlp.inTrace(trace.traceId);
      const consumer = spans.find(consumed);
      return consumer && spans.some((span) => span.spanId === consumer.parentSpanId);
    };
    await waitFor(withParent, {
      timeoutMs: 20_000,
      what: "the gateway's span of the api_key.revoked event, and its parent in the trace",
    });
    one(otlp.inTrace(trace.traceId), 'gateway consumer span', consumed);
    // The gateway has no active context, so the ioredis instrumentation would make no span anyway.
    expect(
      otlp.spans.filter((s) => s.service === 'gateway' && s.attributes['db.system.name'] === 'redis'),
    ).toEqual([]);
  });

  it('a client that says not sampled (flags 00) gets no span anywhere', async () => {
    const as = target.world.as(member);
    const quiet = newTrace();
    const loud = newTrace();
    await createPost(as, categoryId, { title: 'Not sampled' }).then(() => undefined);
    expectStatus(
      await as('GET', '/api/v1/posts', { headers: { traceparent: traceparent(quiet, '00') } }),
      200,
    );
    expectStatus(
      await as('GET', '/api/v1/categories', { headers: { traceparent: traceparent(loud, '01') } }),
      200,
    );
    // Once the later, sampled request's spans are in, the earlier one's would be too.
    const exported = (service: string) => otlp.inTrace(loud.traceId).some((s) => s.service === service);
    await waitFor(() => exported('posts-service') && exported('gateway'), {
      timeoutMs: 10_000,
      what: 'the sampled request to be exported',
    });
    expect(otlp.inTrace(quiet.traceId)).toEqual([]);
  });

  it('no key, password, email or secret is in any exported span', async () => {
    const { admin } = target.owned;
    const exported = otlp.bodies.join('\n');
    expect(exported.length).toBeGreaterThan(0);
    for (const secret of [
      member.key,
      member.password,
      `${member.username}@example.test`,
      admin.password,
      admin.email,
    ])
      expect(exported).not.toContain(secret);
    expect(exported).not.toMatch(/bearer /i);
  });

  it('a log line written while serving a request names its trace and span', async () => {
    const as = target.world.as(member);
    const trace = newTrace();
    expectStatus(
      await as('GET', '/api/v1/categories', { headers: { traceparent: traceparent(trace, '01') } }),
      200,
    );
    const lines = (file: string) => readFileSync(path.join(target.owned.logDir, file), 'utf8').split('\n');
    for (const file of ['gateway.log', 'posts.log']) {
      const line = await waitFor(() => lines(file).find((l) => l.includes(trace.traceId)), {
        what: `a line of ${file} with the trace id`,
      });
      expect(JSON.parse(line)).toMatchObject({
        trace_id: trace.traceId,
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    }
  });
});
