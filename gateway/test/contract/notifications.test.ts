import { openEventStream } from '@community/test-harness';
import { responseValidator, unexercised } from '../support/openapi-contract';
import { adminWithKey, gw, memberWithKey, startStack, type Stack } from '../support/stack';

// Every notification operation (DESIGN.md §13) through the whole stack, each answer held against the
// OpenAPI document by gw() (the stream's head and every event's data too); the last test proves
// every one was reached.

let stack: Stack;
let admin: string;

beforeAll(async () => {
  stack = await startStack('notificationscontract');
  admin = (await adminWithKey(stack)).key;
}, 60_000);
afterAll(() => stack.stop());

it('lists, counts, marks read and streams notifications, as documented', async () => {
  const [author, replier] = [await memberWithKey(stack), await memberWithKey(stack)];
  const category = await gw(stack, 'POST', '/api/v1/categories', { key: admin, body: { name: 'Told' } });
  const post = await gw(stack, 'POST', '/api/v1/posts', {
    key: author.key,
    body: { title: `Hello @${replier.username}`, content: 'Anyone?', category_id: category.body.data.id },
  });
  const path = '/api/v1/notifications/stream';
  const stream = await openEventStream(stack.gateway + path, { authorization: `Bearer ${author.key}` });
  try {
    responseValidator().check({
      method: 'GET',
      path,
      status: stream.status,
      headers: new Headers(stream.headers as Record<string, string>),
      body: undefined,
    });
    await gw(stack, 'POST', `/api/v1/posts/${post.body.data.id}/comments`, {
      key: replier.key,
      body: { content: `Yes, @${author.username}!` },
    });
    await gw(stack, 'POST', `/api/v1/posts/${post.body.data.id}/like`, { key: replier.key });
    // A badge (first post), a reply and a like.
    await stream.next(() => stream.notifications().length >= 3);
    for (const data of stream.notifications()) responseValidator().checkStreamData('GET', path, data);
  } finally {
    stream.close();
  }
  // The replier was mentioned in the title.
  const mentioned = await gw(stack, 'GET', '/api/v1/notifications', { key: replier.key });
  expect(mentioned.body.data.map((n: any) => n.kind)).toEqual(['mention']);

  const list = await gw(stack, 'GET', '/api/v1/notifications?unread=true&limit=2', { key: author.key });
  expect(list.status).toBe(200);
  const next = await gw(
    stack,
    'GET',
    `/api/v1/notifications?unread=true&cursor=${list.body.pagination.next_cursor}`,
    {
      key: author.key,
    },
  );
  expect(next.body.data).toHaveLength(1);
  const count = await gw(stack, 'GET', '/api/v1/notifications/unread-count', { key: author.key });
  expect(count.body.data).toEqual({ unread: 3 });
  const marked = await gw(stack, 'POST', '/api/v1/notifications/read', {
    key: author.key,
    body: { all: true },
  });
  expect(marked.body.data).toEqual({ marked: 3 });
  // A 304 while nothing changed: polling the badge number is free.
  const tag = (await gw(stack, 'GET', '/api/v1/notifications/unread-count', { key: author.key })).headers.get(
    'etag',
  )!;
  const same = await gw(stack, 'GET', '/api/v1/notifications/unread-count', {
    key: author.key,
    headers: { 'if-none-match': tag },
  });
  expect(same.status).toBe(304);
});

it('reached every notification operation with its documented success', () => {
  expect(unexercised(['Notifications'])).toEqual([]);
});
