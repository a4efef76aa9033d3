import { createHash } from 'node:crypto';
import { errorEnvelope, postDetail, singleEnvelope, deletedSchema } from '@community/contracts';
import { actor, waitFor } from '@community/test-harness';
import {
  alice,
  bob,
  createCategory,
  createPost,
  moderator,
  moderatorWithoutScope,
  readOnly,
  seedAuthor,
} from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: PostsHarness;
let categoryId: number;
beforeAll(async () => {
  h = await startPostsService('posts');
  categoryId = (await createCategory(h, 'General')).id;
  await seedAuthor(h, alice.userId, 'alice', 'Alice A.');
});
afterAll(() => h.stop());

const validPost = () => ({ title: 'Hello world', content: 'First post', category_id: categoryId });

describe('POST /api/v1/posts', () => {
  it('creates a post and answers 201 with the detail form and a Location header', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      body: {
        title: '  Café déjà vu: 10 tips!  ',
        content: 'Body',
        category_id: categoryId,
        tags: ['Intro', 'intro', 'how-to'],
      },
    });
    expect(res.status).toBe(201);
    const post = singleEnvelope(postDetail).parse(res.body).data;
    expect(res.headers.get('location')).toBe(`/api/v1/posts/${post.id}`);
    expect(post).toMatchObject({
      title: 'Café déjà vu: 10 tips!',
      slug: 'cafe-deja-vu-10-tips',
      content: 'Body',
      author: { id: alice.userId, username: 'alice', display_name: 'Alice A.' },
      category: { id: categoryId, name: 'General', slug: 'general' },
      tags: ['intro', 'how-to'],
      views: 0,
      likes: 0,
      replies: 0,
      is_pinned: false,
      is_locked: false,
    });
    expect(post.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('renders a post whose author is not replicated yet with placeholder fields', async () => {
    const res = await h.call(actor(999), 'POST', '/posts', { body: validPost() });
    expect(res.body.data.author).toMatchObject({ id: 999, username: 'user_999', display_name: 'User 999' });
    expect(res.body.data.author.avatar).toBe(`${new URL(h.url).origin}/avatars/999.svg`);
  });

  it('stores and returns unicode text byte-for-byte', async () => {
    const title = 'שלום \u200f עולם 👩🏽‍💻 — “quotes” & <tags> \\ 𝕏';
    const content = 'Line 1\nLine 2\t\u00a0 emoji 🎉🎉 combining e\u0301';
    const created = await h.call(alice, 'POST', '/posts', { body: { ...validPost(), title, content } });
    const read = await h.call(alice, 'GET', `/posts/${created.body.data.id}`);
    expect(read.body.data.title).toBe(title);
    expect(read.body.data.content).toBe(content);
  });

  it('says the title is required when it is missing, listing every failure', async () => {
    const res = await h.call(alice, 'POST', '/posts', { body: { content: '', category_id: '5', extra: 1 } });
    expect(res.status).toBe(400);
    errorEnvelope.parse(res.body);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.message).toBe('title is required');
    expect(res.body.details).toMatchObject({ field: 'title', code: 'required' });
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        { field: 'title', code: 'required', message: 'title is required' },
        { field: 'content', code: 'required', message: 'content is required' },
        { field: 'category_id', code: 'invalid_type', message: 'category_id must be an integer' },
        { field: 'extra', code: 'unrecognized_key', message: 'extra is not a recognised field' },
      ]),
    );
  });

  it.each([
    [{ title: '   ' }, 'title', 'required'],
    [{ title: 'x'.repeat(301) }, 'title', 'too_long'],
    [{ title: '🎉'.repeat(300) }, null, null],
    [{ content: 'y'.repeat(50_000) }, null, null],
    [{ content: 'y'.repeat(50_001) }, 'content', 'too_long'],
    [{ title: 42 }, 'title', 'invalid_type'],
    [{ category_id: 1.5 }, 'category_id', 'invalid_type'],
    [{ category_id: 0 }, 'category_id', 'too_small'],
    [{ category_id: 2147483648 }, 'category_id', 'too_big'],
    [{ category_id: 999999 }, 'category_id', 'not_found'],
    [{ tags: 'intro' }, 'tags', 'invalid_type'],
    [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags', 'too_big'],
    [{ tags: ['ok', 'not ok'] }, 'tags.1', 'invalid_value'],
    [{ tags: ['x'.repeat(33)] }, 'tags.0', 'too_long'],
    [{ tags: [''] }, 'tags.0', 'too_short'],
    [{ title: 'nul \u0000 byte' }, 'title', 'invalid_value'],
    [{ title: 'lone \ud800 surrogate' }, 'title', 'invalid_value'],
  ])('validates case %# → %s %s', async (override, field, code) => {
    const res = await h.call(alice, 'POST', '/posts', { body: { ...validPost(), ...override } });
    if (field === null) {
      // the largest valid values are accepted (an emoji counts as one character)
      expect(res.status).toBe(201);
      return;
    }
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      raw: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_json', message: 'the request body is not valid JSON' });
  });

  it('answers a body that is not valid UTF-8 (Latin-1 "café") with 400 invalid_json', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      raw: Buffer.concat([
        Buffer.from('{"title":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('","content":"x"}'),
      ]),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_json', message: 'the request body is not valid UTF-8' });
  });

  it('refuses a body that is not sent as JSON with 415', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      raw: 'title=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      body: { ...validPost(), content: 'z'.repeat(70_000) },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('refuses a body that is JSON but not an object', async () => {
    const res = await h.call(alice, 'POST', '/posts', {
      raw: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'body', code: 'invalid_type' });
  });

  it('needs the write scope', async () => {
    const res = await h.call(readOnly, 'POST', '/posts', { body: validPost() });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
  });
});

describe('GET /api/v1/posts/{id}', () => {
  it('counts one view per detail read', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    expect((await h.call(bob, 'GET', `/posts/${id}`)).body.data.views).toBe(1);
    expect((await h.call(bob, 'GET', `/posts/${id}`)).body.data.views).toBe(2);
  });

  it('tags the bytes it sends, with or without If-None-Match, and a 304 counts no view', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const sha1 = (text: string) => createHash('sha1').update(text).digest('base64').slice(0, 27);
    const plain = await h.call(bob, 'GET', `/posts/${id}`);
    expect(plain.status).toBe(200);
    expect(plain.body.data.views).toBe(1);
    const etag = plain.headers.get('etag')!;
    expect(etag).toBe(`"${Buffer.byteLength(plain.text).toString(16)}-${sha1(plain.text)}"`);
    const notModified = await h.call(bob, 'GET', `/posts/${id}`, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    // A tag that does not match: the read is answered and counted, tagged over its own bytes.
    const changed = await h.call(bob, 'GET', `/posts/${id}`, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.views).toBe(2);
    expect(changed.headers.get('etag')).toBe(
      `"${Buffer.byteLength(changed.text).toString(16)}-${sha1(changed.text)}"`,
    );
  });

  it('writes every view of concurrent reads to the database within a second', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    await Promise.all(Array.from({ length: 25 }, () => h.call(bob, 'GET', `/posts/${id}`)));
    await waitFor(async () => (await h.sql`select views from posts where id = ${id}`)[0]?.views === 25, {
      what: 'the 25 views to be written',
      timeoutMs: 3_000,
    });
    expect((await h.call(bob, 'GET', `/posts/${id}`)).body.data.views).toBe(26);
  });

  it.each(['999999', 'abc', '0', '-1', '1.5', '2147483648', '1e3', '%20'])(
    'answers 404 for id %s',
    async (id) => {
      const res = await h.call(alice, 'GET', `/posts/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'post not found' });
    },
  );

  it('answers 405 with Allow for an unsupported method', async () => {
    const res = await h.call(alice, 'PATCH', '/posts/1', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PUT, DELETE, HEAD');
    expect(res.body.error).toBe('method_not_allowed');
  });

  it('refuses requests that did not come through the gateway', async () => {
    const res = await h.call(alice, 'GET', '/posts', { unsigned: true });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    const forged = await h.call(alice, 'GET', '/posts', {
      headers: { 'x-user-id': '1', 'x-user-role': 'admin', 'x-user-scopes': 'admin' },
    });
    expect(forged.status).toBe(401);
  });

  it('answers unknown routes with the 404 envelope', async () => {
    const res = await h.call(alice, 'GET', '/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});

describe('PUT /api/v1/posts/{id}', () => {
  it('lets the author change content fields and answers the detail form', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const other = await createCategory(h, 'Other');
    const res = await h.call(alice, 'PUT', `/posts/${id}`, {
      body: { title: 'New title', category_id: other.id, tags: ['b'] },
    });
    expect(res.status).toBe(200);
    expect(singleEnvelope(postDetail).parse(res.body).data).toMatchObject({
      title: 'New title',
      slug: 'new-title',
      category: { id: other.id, name: 'Other' },
      tags: ['b'],
    });
    const counts =
      await h.sql`select id, post_count from categories where id in (${categoryId}, ${other.id})`;
    expect(counts.find((c) => c.id === other.id)?.postCount).toBe(1);
  });

  it('forbids another member from editing', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const res = await h.call(bob, 'PUT', `/posts/${id}`, { body: { title: 'Mine now' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it('lets a moderator edit others only with the moderate scope', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const without = await h.call(moderatorWithoutScope, 'PUT', `/posts/${id}`, { body: { title: 'Edited' } });
    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({
      error: 'insufficient_scope',
      details: { required_scope: 'moderate' },
    });
    const withScope = await h.call(moderator, 'PUT', `/posts/${id}`, { body: { title: 'Edited' } });
    expect(withScope.status).toBe(200);
  });

  it('lets only moderators pin and lock', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const byAuthor = await h.call(alice, 'PUT', `/posts/${id}`, { body: { is_pinned: true } });
    expect(byAuthor.status).toBe(403);
    expect(byAuthor.body.error).toBe('forbidden');
    const byModerator = await h.call(moderator, 'PUT', `/posts/${id}`, {
      body: { is_pinned: true, is_locked: true },
    });
    expect(byModerator.body.data).toMatchObject({ is_pinned: true, is_locked: true });
  });

  it('needs at least one field and validates like creation', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const empty = await h.call(alice, 'PUT', `/posts/${id}`, { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toMatchObject({ field: 'body', code: 'required' });
    const bad = await h.call(alice, 'PUT', `/posts/${id}`, { body: { title: '', views: 5 } });
    expect(bad.body.details.errors.map((e: { code: string }) => e.code).sort()).toEqual([
      'required',
      'unrecognized_key',
    ]);
  });

  it('answers 404 for a missing post before checking ownership', async () => {
    const res = await h.call(bob, 'PUT', '/posts/999999', { body: { title: 'x' } });
    expect(res.status).toBe(404);
  });
});

describe('DELETE /api/v1/posts/{id}', () => {
  it('soft-deletes: the author gets a JSON body, then the post is 404 everywhere', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    const res = await h.call(alice, 'DELETE', `/posts/${id}`);
    expect(res.status).toBe(200);
    expect(singleEnvelope(deletedSchema).parse(res.body).data).toEqual({ id, deleted: true });
    expect((await h.call(alice, 'GET', `/posts/${id}`)).status).toBe(404);
    expect((await h.call(alice, 'PUT', `/posts/${id}`, { body: { title: 'x' } })).status).toBe(404);
    expect((await h.call(alice, 'DELETE', `/posts/${id}`)).status).toBe(404);
    expect((await h.call(alice, 'GET', `/posts/${id}/comments`)).status).toBe(404);
    const list = await h.call(alice, 'GET', `/posts?author=${alice.userId}&limit=100`);
    expect(list.body.data.map((p: { id: number }) => p.id)).not.toContain(id);
    const [row] = await h.sql`select deleted_at from posts where id = ${id}`;
    expect(row?.deletedAt).toBeInstanceOf(Date);
  });

  it('forbids another member and allows a moderator', async () => {
    const { id } = await createPost(h, alice, { category_id: categoryId });
    expect((await h.call(bob, 'DELETE', `/posts/${id}`)).status).toBe(403);
    expect((await h.call(moderator, 'DELETE', `/posts/${id}`)).status).toBe(200);
  });
});
