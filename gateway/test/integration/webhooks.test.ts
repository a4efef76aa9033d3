import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { actor, waitFor } from '@community/test-harness';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gwwebhooks');
});
afterAll(() => stack.stop());

it('delivers a post created through the gateway to a subscribed receiver, signed', async () => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const { id, key } = await memberWithKey(stack, ['read', 'write', 'webhooks']);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const endpoint = await gw(stack, 'POST', '/api/v1/webhooks', {
      key,
      body: { url, events: ['post.created'] },
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.headers.get('x-ratelimit-limit')).toBe('100');
    const admin = actor(1, 'admin', ['admin']);
    const category = await stack.posts(admin, 'POST', '/categories', { body: { name: 'Hooks' } });
    const post = await gw(stack, 'POST', '/api/v1/posts', {
      key,
      body: { title: 'Hooked', content: 'c', category_id: category.body.data.id },
    });
    expect(post.status).toBe(201);
    await waitFor(() => received.length > 0, { what: 'the post.created delivery', timeoutMs: 10_000 });
    const payload = new Webhook(endpoint.body.data.secret).verify(
      received[0]!.body,
      received[0]!.headers as Record<string, string>,
    );
    expect(payload).toMatchObject({
      event: 'post.created',
      data: { id: post.body.data.id, title: 'Hooked', author_id: id },
    });
    // The receiver has the delivery a moment before the dispatcher has recorded its answer: wait
    // for that record, then check it.
    const deliveries = () =>
      gw(stack, 'GET', `/api/v1/webhooks/${endpoint.body.data.id}/deliveries`, { key });
    await waitFor(async () => ((await deliveries()).body.data[0]?.status ?? 'pending') !== 'pending', {
      what: 'the delivery recorded',
      timeoutMs: 10_000,
    });
    const log = await deliveries();
    expect(log.body.data[0]).toMatchObject({ status: 'succeeded', attempts: 1, event: 'post.created' });
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
