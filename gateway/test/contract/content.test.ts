import { unexercised } from '../support/openapi-contract';
import { adminWithKey, gw, memberWithKey, startStack } from '../support/stack';

// Every posts-service operation through the whole stack. gw() holds each answer against the OpenAPI
// document (status, headers, body); the last test proves every operation was reached.

/** The stack and the keys the tests call with: an admin's, the posts' author's and another member's. */
async function setUp() {
  const stack = await startStack('contentcontract');
  const [admin, author, stranger] = await Promise.all([
    adminWithKey(stack),
    memberWithKey(stack),
    memberWithKey(stack),
  ]);
  return { stack, admin: admin.key, author: author.key, stranger: stranger.key };
}

let t: Awaited<ReturnType<typeof setUp>>;
beforeAll(async () => {
  t = await setUp();
});
afterAll(() => t.stack.stop());

let slugs = 0;
async function newCategory(): Promise<number> {
  const res = await gw(t.stack, 'POST', '/api/v1/categories', {
    key: t.admin,
    body: { name: `Topic ${++slugs}` },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function newPost(key = t.author): Promise<number> {
  const category_id = await newCategory();
  const res = await gw(t.stack, 'POST', '/api/v1/posts', {
    key,
    body: { title: 'Contract', content: 'Held against the document', category_id, tags: ['Docs'] },
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('location')).toBe(`/api/v1/posts/${res.body.data.id}`);
  return res.body.data.id;
}

it('categories: admins write them, members read them, conflicts are 409', async () => {
  const first = await gw(t.stack, 'POST', '/api/v1/categories', { key: t.admin, body: { name: 'General' } });
  expect(first.status).toBe(201);
  const id = first.body.data.id;
  expect(
    (await gw(t.stack, 'POST', '/api/v1/categories', { key: t.admin, body: { name: 'General' } })).status,
  ).toBe(409);
  const denied = await gw(t.stack, 'POST', '/api/v1/categories', { key: t.author, body: { name: 'Mine' } });
  expect(denied.body.details).toEqual({ required_scope: 'admin' });
  expect((await gw(t.stack, 'GET', '/api/v1/categories?limit=1', { key: t.author })).status).toBe(200);
  expect((await gw(t.stack, 'GET', `/api/v1/categories/${id}`, { key: t.author })).status).toBe(200);
  expect((await gw(t.stack, 'GET', '/api/v1/categories/999999', { key: t.author })).status).toBe(404);
  const second = await newCategory();
  const taken = await gw(t.stack, 'PUT', `/api/v1/categories/${second}`, {
    key: t.admin,
    body: { slug: 'general' },
  });
  expect(taken.status).toBe(409);
  const renamed = await gw(t.stack, 'PUT', `/api/v1/categories/${second}`, {
    key: t.admin,
    body: { description: 'x' },
  });
  expect(renamed.status).toBe(200);
  expect((await gw(t.stack, 'DELETE', `/api/v1/categories/${second}`, { key: t.admin })).status).toBe(200);

  const post = await newPost();
  const { body } = await gw(t.stack, 'GET', `/api/v1/posts/${post}`, { key: t.author });
  const busy = await gw(t.stack, 'DELETE', `/api/v1/categories/${body.data.category.id}`, { key: t.admin });
  expect(busy.status).toBe(409);
});

it('posts: create, list, read, update, like and delete, and every way a body can be refused', async () => {
  const id = await newPost();
  const invalid = await gw(t.stack, 'POST', '/api/v1/posts', {
    key: t.author,
    body: { content: 'no title' },
  });
  expect(invalid.body.details.field).toBe('title');
  const broken = { key: t.author, rawBody: '{"title":', headers: { 'content-type': 'application/json' } };
  expect((await gw(t.stack, 'POST', '/api/v1/posts', broken)).body.error).toBe('invalid_json');
  const text = { key: t.author, rawBody: 'title=x', headers: { 'content-type': 'text/plain' } };
  expect((await gw(t.stack, 'POST', '/api/v1/posts', text)).status).toBe(415);
  const huge = { key: t.author, body: { title: 't', content: 'x'.repeat(70_000), category_id: 1 } };
  expect((await gw(t.stack, 'POST', '/api/v1/posts', huge)).status).toBe(413);
  expect((await gw(t.stack, 'POST', '/api/v1/posts', { body: { title: 't' } })).status).toBe(401);

  const list = await gw(t.stack, 'GET', '/api/v1/posts?sort=trending&limit=1&tag=docs', { key: t.author });
  expect(list.headers.get('link')).toContain('rel="first"');
  expect((await gw(t.stack, 'GET', '/api/v1/posts?limit=0', { key: t.author })).status).toBe(400);
  expect((await gw(t.stack, 'GET', `/api/v1/posts/${id}`, { key: t.stranger })).body.data.views).toBe(1);
  expect((await gw(t.stack, 'GET', '/api/v1/posts/abc', { key: t.author })).status).toBe(404);

  const update = { title: 'Contract, revised' };
  expect((await gw(t.stack, 'PUT', `/api/v1/posts/${id}`, { key: t.author, body: update })).status).toBe(200);
  const notYours = await gw(t.stack, 'PUT', `/api/v1/posts/${id}`, { key: t.stranger, body: update });
  expect(notYours.body.error).toBe('forbidden');
  expect((await gw(t.stack, 'POST', `/api/v1/posts/${id}/like`, { key: t.stranger })).body.data.liked).toBe(
    true,
  );
  expect((await gw(t.stack, 'DELETE', `/api/v1/posts/${id}/like`, { key: t.stranger })).body.data.liked).toBe(
    false,
  );
  expect((await gw(t.stack, 'DELETE', `/api/v1/posts/${id}`, { key: t.author })).status).toBe(200);
  expect((await gw(t.stack, 'GET', `/api/v1/posts/${id}`, { key: t.author })).status).toBe(404);
});

it('comments: create, list, read, edit, like and delete; a locked post refuses new ones', async () => {
  const post = await newPost();
  const created = await gw(t.stack, 'POST', `/api/v1/posts/${post}/comments`, {
    key: t.stranger,
    body: { content: 'First!' },
  });
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  const reply = { content: 'Second', parent_id: id };
  expect(
    (await gw(t.stack, 'POST', `/api/v1/posts/${post}/comments`, { key: t.author, body: reply })).status,
  ).toBe(201);
  const list = await gw(t.stack, 'GET', `/api/v1/posts/${post}/comments?sort=newest`, { key: t.author });
  expect(list.body.data.map((comment: any) => comment.parent_id)).toEqual([id, null]);
  expect((await gw(t.stack, 'GET', `/api/v1/comments/${id}`, { key: t.author })).status).toBe(200);
  const edit = { key: t.stranger, body: { content: 'First, edited' } };
  expect((await gw(t.stack, 'PUT', `/api/v1/comments/${id}`, edit)).status).toBe(200);
  expect((await gw(t.stack, 'POST', `/api/v1/comments/${id}/like`, { key: t.author })).body.data.likes).toBe(
    1,
  );
  expect(
    (await gw(t.stack, 'DELETE', `/api/v1/comments/${id}/like`, { key: t.author })).body.data.likes,
  ).toBe(0);
  expect((await gw(t.stack, 'DELETE', `/api/v1/comments/${id}`, { key: t.stranger })).status).toBe(200);
  expect((await gw(t.stack, 'GET', '/api/v1/posts/999999/comments', { key: t.author })).status).toBe(404);

  const lock = await gw(t.stack, 'PUT', `/api/v1/posts/${post}`, { key: t.admin, body: { is_locked: true } });
  expect(lock.body.data.is_locked).toBe(true);
  const locked = await gw(t.stack, 'POST', `/api/v1/posts/${post}/comments`, {
    key: t.author,
    body: { content: 'Late' },
  });
  expect(locked.body.error).toBe('post_locked');
});

it('search and lookup: posts and comments by q with highlights, tags with counts', async () => {
  const post = await newPost();
  await gw(t.stack, 'POST', `/api/v1/posts/${post}/comments`, {
    key: t.stranger,
    body: { content: 'Contracts <b>hold</b>' },
  });
  const found = await gw(t.stack, 'GET', '/api/v1/posts?q=held%20document&limit=5', { key: t.stranger });
  expect(found.body.data[0].highlight.content).toContain('<mark>Held</mark>');
  expect(found.headers.get('link')).toContain('q=held+document');
  const comments = await gw(t.stack, 'GET', `/api/v1/comments?q=contracts&post=${post}`, { key: t.author });
  expect(comments.body.data[0].highlight.content).toMatch(/^<mark>Contracts<\/mark>/);
  expect(
    (await gw(t.stack, 'GET', '/api/v1/comments?limit=1', { key: t.author })).body.pagination.next_cursor,
  ).toEqual(expect.any(String));
  const tags = await gw(t.stack, 'GET', '/api/v1/tags?q=do', { key: t.stranger });
  expect(tags.body.data).toEqual([{ name: 'docs', post_count: expect.any(Number) }]);
  const short = await gw(t.stack, 'GET', '/api/v1/posts?q=x', { key: t.author });
  expect([short.status, short.body.details.code]).toEqual([400, 'too_short']);
  expect((await gw(t.stack, 'GET', '/api/v1/tags', {})).status).toBe(401);
});

it('reached every posts, comments and categories operation with its documented success', () => {
  expect(unexercised(['Posts', 'Comments', 'Categories'])).toEqual([]);
});
