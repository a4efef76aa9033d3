import { categorySchema, likeResult, listEnvelope, singleEnvelope } from '@community/contracts';
import { actor } from '@community/test-harness';
import { alice, bob, createCategory, createPost, moderator } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('categories');
});
afterAll(() => h.stop());

describe('categories', () => {
  it('lets an admin create one: 201, derived slug, Location', async () => {
    const res = await h.call(h.admin, 'POST', '/categories', {
      body: { name: 'Show & Tell', description: 'Things you made' },
    });
    expect(res.status).toBe(201);
    const category = singleEnvelope(categorySchema).parse(res.body).data;
    expect(category).toMatchObject({
      name: 'Show & Tell',
      slug: 'show-tell',
      description: 'Things you made',
      post_count: 0,
    });
    expect(res.headers.get('location')).toBe(`/api/v1/categories/${category.id}`);
  });

  it('refuses members, moderators and admins without the admin scope', async () => {
    expect((await h.call(alice, 'POST', '/categories', { body: { name: 'X' } })).body.error).toBe(
      'forbidden',
    );
    expect((await h.call(moderator, 'POST', '/categories', { body: { name: 'X' } })).body.error).toBe(
      'forbidden',
    );
    const scopeless = actor(1, 'admin', ['read', 'write']);
    const res = await h.call(scopeless, 'POST', '/categories', { body: { name: 'X' } });
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'admin' } });
  });

  it('answers 409 for a duplicate slug, on create and on update', async () => {
    await createCategory(h, 'Unique Name');
    const dup = await h.call(h.admin, 'POST', '/categories', { body: { name: 'unique name' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
    const other = await createCategory(h, 'Another');
    const rename = await h.call(h.admin, 'PUT', `/categories/${other.id}`, { body: { slug: 'unique-name' } });
    expect(rename.status).toBe(409);
  });

  it('counts live posts and refuses to delete a category that has any', async () => {
    const category = await createCategory(h, 'Busy');
    const post = await createPost(h, alice, { category_id: category.id });
    expect((await h.call(alice, 'GET', `/categories/${category.id}`)).body.data.post_count).toBe(1);
    const refused = await h.call(h.admin, 'DELETE', `/categories/${category.id}`);
    expect(refused.status).toBe(409);
    await h.call(alice, 'DELETE', `/posts/${post.id}`);
    expect((await h.call(alice, 'GET', `/categories/${category.id}`)).body.data.post_count).toBe(0);
    const deleted = await h.call(h.admin, 'DELETE', `/categories/${category.id}`);
    expect(deleted.body).toEqual({ success: true, data: { id: category.id, deleted: true } });
    expect((await h.call(alice, 'GET', `/categories/${category.id}`)).status).toBe(404);
  });

  it('updates partially and validates', async () => {
    const category = await createCategory(h, 'Old');
    const res = await h.call(h.admin, 'PUT', `/categories/${category.id}`, { body: { name: 'New' } });
    expect(res.body.data).toMatchObject({ name: 'New', slug: category.slug });
    const bad = await h.call(h.admin, 'PUT', `/categories/${category.id}`, {
      body: { name: 'x'.repeat(51) },
    });
    expect(bad.body.details).toMatchObject({ field: 'name', code: 'too_long' });
    const empty = await h.call(h.admin, 'PUT', `/categories/${category.id}`, { body: {} });
    expect(empty.status).toBe(400);
  });

  it('lists categories by name with pagination', async () => {
    const res = await h.call(alice, 'GET', '/categories?limit=2');
    listEnvelope(categorySchema).parse(res.body);
    const names = res.body.data.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort());
    expect(res.body.pagination.per_page).toBe(2);
  });
});

describe('likes', () => {
  it('likes idempotently and unlikes idempotently', async () => {
    const post = await createPost(h);
    const first = await h.call(bob, 'POST', `/posts/${post.id}/like`);
    expect(singleEnvelope(likeResult).parse(first.body).data).toEqual({
      post_id: post.id,
      liked: true,
      likes: 1,
    });
    expect((await h.call(bob, 'POST', `/posts/${post.id}/like`)).body.data.likes).toBe(1);
    expect((await h.call(alice, 'POST', `/posts/${post.id}/like`)).body.data.likes).toBe(2);
    expect((await h.call(bob, 'DELETE', `/posts/${post.id}/like`)).body.data).toEqual({
      post_id: post.id,
      liked: false,
      likes: 1,
    });
    expect((await h.call(bob, 'DELETE', `/posts/${post.id}/like`)).body.data.likes).toBe(1);
    expect((await h.call(bob, 'GET', `/posts/${post.id}`)).body.data.likes).toBe(1);
  });

  it('counts concurrent likes exactly', async () => {
    const post = await createPost(h);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.call(actor(500 + (i % 10)), 'POST', `/posts/${post.id}/like`)),
    );
    expect((await h.call(bob, 'GET', `/posts/${post.id}`)).body.data.likes).toBe(10);
  });

  it('answers 404 for likes on unknown posts', async () => {
    expect((await h.call(bob, 'POST', '/posts/999999/like')).status).toBe(404);
  });
});
