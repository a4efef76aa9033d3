import { Webhook } from 'standardwebhooks';
import { PUBLIC_EVENTS } from '@community/contracts';
import { waitFor } from '@community/test-harness';
import { startReceiver } from '../../../webhook-service/test/support/receiver';
import { responseValidator, unexercised } from '../support/openapi-contract';
import { adminWithKey, gw, memberWithKey, startStack, type Stack } from '../support/stack';

// Every users-service, webhook-service and gateway operation through the whole stack, each answer
// held against the OpenAPI document by gw(); deliveries are held against its `webhooks`.

let stack: Stack;
let admin: Awaited<ReturnType<typeof adminWithKey>>;
let member: Awaited<ReturnType<typeof memberWithKey>>;

beforeAll(async () => {
  stack = await startStack('accountscontract');
  [admin, member] = await Promise.all([
    adminWithKey(stack),
    memberWithKey(stack, ['read', 'write', 'keys', 'webhooks']),
  ]);
});
afterAll(() => stack.stop());

it('meta: the API names itself and serves this document', async () => {
  expect((await gw(stack, 'GET', '/api/v1', { key: member.key })).body.data.version).toBe('1.0.0');
  expect((await gw(stack, 'GET', '/api/v1/openapi.json')).body.openapi).toBe('3.1.0');
});

it('registration: no key, strict body, unique names', async () => {
  const body = { username: 'Contract_User', email: 'contract@example.test', password: 'a long password' };
  const created = await gw(stack, 'POST', '/api/v1/auth/register', { body });
  expect(created.body.data).toMatchObject({ username: 'contract_user', role: 'member', plan: 'free' });
  expect((await gw(stack, 'POST', '/api/v1/auth/register', { body })).status).toBe(409);
  const short = await gw(stack, 'POST', '/api/v1/auth/register', { body: { ...body, password: 'short' } });
  expect(short.body.details.field).toBe('password');
});

it('avatars: register → GET /users/{id} gives an http(s) avatar URL, which answers an SVG with no key', async () => {
  const body = { username: 'avatar_user', email: 'avatar@example.test', password: 'a long password' };
  const { id } = (await gw(stack, 'POST', '/api/v1/auth/register', { body })).body.data;
  const profile = await gw(stack, 'GET', `/api/v1/users/${id}`, { key: member.key });
  const avatar = new URL(profile.body.data.avatar as string);
  expect(avatar.protocol).toMatch(/^https?:$/);
  // Unset, the public base is the host the request came in on: this gateway.
  expect(avatar.href).toBe(`${stack.gateway}/avatars/${id}.svg`);

  const picture = await gw(stack, 'GET', avatar.pathname); // no key
  expect(picture.status).toBe(200);
  expect(picture.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  expect(picture.headers.get('cache-control')).toBe('public, max-age=86400');
  expect(picture.headers.get('x-content-type-options')).toBe('nosniff');
  expect(picture.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  expect((await gw(stack, 'GET', '/avatars/not-a-user.svg')).body.error).toBe('not_found');
});

it('users: profiles, your own account, and admin changes of plan and role', async () => {
  const { key, id } = member;
  expect((await gw(stack, 'GET', '/api/v1/users?sort=reputation&limit=2', { key })).status).toBe(200);
  expect((await gw(stack, 'GET', '/api/v1/users/me', { key })).body.data.id).toBe(id);
  const bio = { key, body: { bio: 'Reads specifications for fun.', avatar: null } };
  expect((await gw(stack, 'PUT', '/api/v1/users/me', bio)).body.data.bio).toBe(
    'Reads specifications for fun.',
  );
  expect((await gw(stack, 'GET', `/api/v1/users/${id}`, { key })).body.data).not.toHaveProperty('email');
  expect((await gw(stack, 'GET', '/api/v1/users/999999', { key })).status).toBe(404);

  const plan = { plan: 'enterprise', hourly_limit: 500, daily_limit: 5000 };
  expect((await gw(stack, 'PUT', `/api/v1/users/${id}/plan`, { key: admin.key, body: plan })).status).toBe(
    200,
  );
  expect((await gw(stack, 'PUT', `/api/v1/users/${id}/plan`, { key, body: plan })).status).toBe(403);
  const role = { key: admin.key, body: { role: 'moderator' } };
  expect((await gw(stack, 'PUT', `/api/v1/users/${id}/role`, role)).body.data.role).toBe('moderator');
});

it('keys: list, create (shown once, not cached) and revoke', async () => {
  const { key } = member;
  expect((await gw(stack, 'GET', '/api/v1/keys', { key })).body.data.length).toBeGreaterThanOrEqual(1);
  const created = await gw(stack, 'POST', '/api/v1/keys', {
    key,
    body: { name: 'reader', scopes: ['read'] },
  });
  expect(created.headers.get('cache-control')).toBe('no-store');
  const beyond = await gw(stack, 'POST', '/api/v1/keys', { key, body: { name: 'x', scopes: ['admin'] } });
  expect(beyond.status).toBe(403);
  const id = created.body.data.id;
  expect((await gw(stack, 'DELETE', `/api/v1/keys/${id}`, { key })).body.data).toEqual({ id, deleted: true });
  expect((await gw(stack, 'DELETE', `/api/v1/keys/${id}`, { key })).status).toBe(404);
  expect((await gw(stack, 'GET', '/api/v1/keys')).status).toBe(401);
});

it('webhooks: manage an endpoint; every public event arrives signed as the document describes', async () => {
  const receiver = await startReceiver();
  try {
    const { key } = member;
    const events = [...PUBLIC_EVENTS];
    const created = await gw(stack, 'POST', '/api/v1/webhooks', { key, body: { url: receiver.url, events } });
    const id = created.body.data.id;
    const bad = await gw(stack, 'POST', '/api/v1/webhooks', {
      key,
      body: { url: receiver.url, events: ['x'] },
    });
    expect(bad.status).toBe(400);
    expect((await gw(stack, 'GET', '/api/v1/webhooks', { key })).body.data).toHaveLength(1);
    expect((await gw(stack, 'GET', `/api/v1/webhooks/${id}`, { key })).body.data.events).toEqual(events);
    expect((await gw(stack, 'GET', `/api/v1/webhooks/${id}`, { key: admin.key })).status).toBe(404);
    const described = { key, body: { description: 'contract receiver' } };
    expect((await gw(stack, 'PUT', `/api/v1/webhooks/${id}`, described)).status).toBe(200);
    const rotated = await gw(stack, 'POST', `/api/v1/webhooks/${id}/rotate-secret`, { key });
    const secret = rotated.body.data.secret as string;

    // One of each public event.
    const hooked = await gw(stack, 'POST', '/api/v1/auth/register', {
      body: { username: 'hooked', email: 'hooked@example.test', password: 'a long password' },
    });
    const erased = await gw(stack, 'DELETE', `/api/v1/users/${hooked.body.data.id}`, { key: admin.key });
    expect(erased.status).toBe(202);
    const category = await gw(stack, 'POST', '/api/v1/categories', {
      key: admin.key,
      body: { name: 'Hooks' },
    });
    const post = await gw(stack, 'POST', '/api/v1/posts', {
      key,
      body: { title: 'Hooked', content: 'c', category_id: category.body.data.id },
    });
    const postId = post.body.data.id;
    await gw(stack, 'POST', `/api/v1/posts/${postId}/comments`, { key, body: { content: 'c' } });
    await gw(stack, 'PUT', `/api/v1/posts/${postId}`, { key, body: { title: 'Hooked again' } });
    await gw(stack, 'DELETE', `/api/v1/posts/${postId}`, { key });

    await waitFor(() => receiver.received.length >= PUBLIC_EVENTS.length, {
      what: 'one delivery per public event',
      timeoutMs: 15_000,
    });
    const seen = receiver.received.map(({ headers, body }) => {
      new Webhook(secret).verify(body, headers as Record<string, string>);
      return responseValidator().checkWebhook(headers, body);
    });
    expect(new Set(seen)).toEqual(
      new Set([
        'userRegisteredWebhook',
        'postCreatedWebhook',
        'commentCreatedWebhook',
        'postUpdatedWebhook',
        'postDeletedWebhook',
        'userDeletedWebhook',
      ]),
    );

    // The receiver has its answer before webhook-service records the attempt: wait for the record.
    const log = await waitFor(
      async () => {
        const answer = await gw(stack, 'GET', `/api/v1/webhooks/${id}/deliveries?status=succeeded`, { key });
        return answer.body.pagination.total_items >= PUBLIC_EVENTS.length && answer;
      },
      { what: 'every delivery recorded as succeeded', timeoutMs: 15_000 },
    );
    expect(log.body.pagination.total_items).toBe(PUBLIC_EVENTS.length);
    const delivery = log.body.data[0].id;
    const again = await gw(stack, 'POST', `/api/v1/webhooks/${id}/deliveries/${delivery}/redeliver`, { key });
    expect(again.body.data.status).toBe('pending');

    // DESIGN.md §14 through the gateway: the event log, a test ping, a replay.
    const logged = await gw(stack, 'GET', '/api/v1/events?types=post.created', { key });
    expect(logged.body.data.map((e: { event: string }) => e.event)).toContain('post.created');
    const ping = await gw(stack, 'POST', `/api/v1/webhooks/${id}/test`, { key });
    expect(ping.body.data).toMatchObject({ status: 'succeeded' });
    const since = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const replayed = await gw(stack, 'POST', `/api/v1/webhooks/${id}/replay`, { key, body: { since } });
    // The window also holds what the file's other tests caused (registrations, posts).
    expect(replayed.status).toBe(202);
    expect(replayed.body.data.queued).toBeGreaterThanOrEqual(PUBLIC_EVENTS.length);
    expect((await gw(stack, 'DELETE', `/api/v1/webhooks/${id}`, { key })).status).toBe(200);
    expect((await gw(stack, 'GET', `/api/v1/webhooks/${id}`, { key })).status).toBe(404);
  } finally {
    await receiver.close();
  }
});

it('leaving: the export streams everything about you; erasure needs your password, or an admin', async () => {
  const leaver = await memberWithKey(stack, ['read', 'keys']);
  const exported = await gw(stack, 'GET', '/api/v1/users/me/export', { key: leaver.key });
  expect(exported.body.data.profile.id).toBe(leaver.id);
  expect(exported.headers.get('etag')).toBeNull();

  const wrong = await gw(stack, 'DELETE', '/api/v1/users/me', { key: leaver.key, body: { password: 'no' } });
  expect(wrong.status).toBe(403);
  const erased = await gw(stack, 'DELETE', '/api/v1/users/me?content=delete', {
    key: leaver.key,
    body: { password: 'a long password' },
  });
  expect(erased.body.data).toEqual({ status: 'erasing' });

  const other = await memberWithKey(stack);
  expect((await gw(stack, 'DELETE', `/api/v1/users/${other.id}`, { key: member.key })).status).toBe(403);
  expect((await gw(stack, 'DELETE', `/api/v1/users/${other.id}`, { key: admin.key })).status).toBe(202);
});

it('reached every account, user, key, webhook and meta operation with its documented success', () => {
  expect(unexercised(['Accounts', 'Users', 'Keys', 'Webhooks', 'Meta'])).toEqual([]);
});
