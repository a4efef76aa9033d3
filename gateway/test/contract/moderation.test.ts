import { actor, waitFor } from '@community/test-harness';
import { unexercised } from '../support/openapi-contract';
import { adminWithKey, gw, memberWithKey, startStack, type Stack } from '../support/stack';

// Every moderation operation (DESIGN.md §12) through the whole stack, each answer held against the
// OpenAPI document by gw(); the last test proves every one was reached.

let stack: Stack;
let admin: string;
let moderator: string;

beforeAll(async () => {
  stack = await startStack('moderationcontract');
  admin = (await adminWithKey(stack)).key;
  const mod = await memberWithKey(stack);
  const asAdmin = actor(1, 'admin', ['admin']);
  const promoted = await stack.users(asAdmin, 'PUT', `/users/${mod.id}/role`, {
    body: { role: 'moderator' },
  });
  expect(promoted.status).toBe(200);
  const owner = actor(mod.id, 'moderator', ['read', 'write', 'keys', 'moderate']);
  const minted = await stack.users(owner, 'POST', '/keys', {
    body: { name: 'queue', scopes: ['read', 'write', 'moderate'] },
  });
  moderator = minted.body.data.key;
}, 60_000);
afterAll(() => stack.stop());

it('flags, the queue, a decision, a suspension and the audit log, as documented', async () => {
  const author = await memberWithKey(stack);
  const flaggers = await Promise.all([memberWithKey(stack), memberWithKey(stack), memberWithKey(stack)]);
  const category = await gw(stack, 'POST', '/api/v1/categories', { key: admin, body: { name: 'Moderated' } });
  const post = await gw(stack, 'POST', '/api/v1/posts', {
    key: author.key,
    body: { title: 'Flag me', content: 'Spam', category_id: category.body.data.id },
  });
  const comment = await gw(stack, 'POST', `/api/v1/posts/${post.body.data.id}/comments`, {
    key: author.key,
    body: { content: 'More spam' },
  });
  const onComment = await gw(stack, 'POST', `/api/v1/comments/${comment.body.data.id}/flags`, {
    key: flaggers[0]!.key,
    body: { reason: 'off_topic' },
  });
  expect(onComment.status).toBe(201);
  const again = await gw(stack, 'POST', `/api/v1/comments/${comment.body.data.id}/flags`, {
    key: flaggers[0]!.key,
    body: { reason: 'off_topic' },
  });
  expect(again.status).toBe(409);

  for (const flagger of flaggers) {
    const flagged = await gw(stack, 'POST', `/api/v1/posts/${post.body.data.id}/flags`, {
      key: flagger.key,
      body: { reason: 'spam', note: 'again' },
    });
    expect(flagged.status).toBe(201);
    const read = await gw(stack, 'GET', flagged.headers.get('location')!, { key: moderator });
    expect(read.body.data).toEqual(flagged.body.data);
  }
  const queue = await gw(stack, 'GET', '/api/v1/flags?status=open&target_type=post', { key: moderator });
  expect(queue.status).toBe(200);
  const decided = await gw(stack, 'PUT', `/api/v1/flags/${queue.body.data[0].id}`, {
    key: moderator,
    body: { status: 'dismissed' },
  });
  expect(decided.status).toBe(200);

  const suspended = await gw(stack, 'PUT', `/api/v1/users/${author.id}/suspension`, {
    key: moderator,
    body: { reason: 'spam' },
  });
  expect(suspended.status).toBe(200);
  const refused = await waitFor(
    async () => {
      const res = await gw(stack, 'GET', '/api/v1/posts', { key: author.key });
      return res.status === 403 ? res : undefined;
    },
    { what: 'the suspended key refused', intervalMs: 100 },
  );
  expect(refused.body.error).toBe('account_suspended');
  const lifted = await gw(stack, 'DELETE', `/api/v1/users/${author.id}/suspension`, { key: moderator });
  expect(lifted.status).toBe(200);

  await waitFor(
    async () =>
      (await gw(stack, 'GET', '/api/v1/moderation/actions?limit=10', { key: moderator })).body.data.length >=
      4,
    { what: 'the acts logged' },
  );
});

it('reached every moderation operation with its documented success', () => {
  expect(unexercised(['Moderation'])).toEqual([]);
});
