import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { actor, waitFor } from '@community/test-harness';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §10 across the stack: a retried POST creates one object and one webhook delivery.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gwidempotency');
});
afterAll(() => stack.stop());

it('a post retried with its Idempotency-Key is one post and one delivery; the webhook one endpoint', async () => {
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const { key } = await memberWithKey(stack, ['read', 'write', 'webhooks']);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const subscribe = () =>
      gw(stack, 'POST', '/api/v1/webhooks', {
        key,
        body: { url, events: ['post.created'] },
        headers: { 'idempotency-key': 'subscribe-once' },
      });
    const endpoint = await subscribe();
    const endpointAgain = await subscribe();
    expect([endpoint.status, endpointAgain.status]).toEqual([201, 201]);
    expect(endpointAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(endpointAgain.body).toEqual(endpoint.body);
    const endpoints = await gw(stack, 'GET', '/api/v1/webhooks', { key });
    expect(endpoints.body.data).toHaveLength(1);

    const admin = actor(1, 'admin', ['admin']);
    const category = await stack.posts(admin, 'POST', '/categories', { body: { name: 'Retries' } });
    const write = (bearer: string) =>
      gw(stack, 'POST', '/api/v1/posts', {
        key: bearer,
        body: { title: 'Sent twice', content: 'c', category_id: category.body.data.id },
        headers: { 'idempotency-key': 'post-once' },
      });
    // What the gateway answers itself is not kept: a 401 first does not stick to the key.
    expect((await write('cpk_' + '0'.repeat(40))).status).toBe(401);
    const post = await write(key);
    const replay = await write(key);
    expect([post.status, post.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(replay.body).toEqual(post.body);
    // A replay is a request like any other: it is counted, and says so.
    expect(Number(replay.headers.get('x-ratelimit-remaining'))).toBe(
      Number(post.headers.get('x-ratelimit-remaining')) - 1,
    );
    const reused = await gw(stack, 'POST', '/api/v1/posts', {
      key,
      body: { title: 'Another post', content: 'c', category_id: category.body.data.id },
      headers: { 'idempotency-key': 'post-once' },
    });
    expect([reused.status, reused.body.error]).toEqual([422, 'idempotency_key_reused']);

    const forPost = () => received.filter((body) => JSON.parse(body).data.id === post.body.data.id);
    await waitFor(() => forPost().length > 0, { what: 'the post.created delivery', timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(forPost()).toHaveLength(1);
    expect(received).toHaveLength(1);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
