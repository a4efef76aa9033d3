import { commentSchema, singleEnvelope, timeListEnvelope } from '@community/contracts';
import { alice, bob, createPost, moderator, moderatorWithoutScope, readOnly } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('comments');
});
afterAll(() => h.stop());

async function comment(postId: number, content: string, as = bob, parent_id?: number) {
  const res = await h.call(as, 'POST', `/posts/${postId}/comments`, { body: { content, parent_id } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number };
}

describe('POST /api/v1/posts/{id}/comments', () => {
  it('creates a top-level comment with 201, Location, and counts it in replies', async () => {
    const post = await createPost(h);
    const res = await h.call(bob, 'POST', `/posts/${post.id}/comments`, {
      body: { content: '  Nice post!  ' },
    });
    expect(res.status).toBe(201);
    const created = singleEnvelope(commentSchema).parse(res.body).data;
    expect(res.headers.get('location')).toBe(`/api/v1/comments/${created.id}`);
    expect(created).toMatchObject({ post_id: post.id, parent_id: null, content: 'Nice post!', likes: 0 });
    expect(created.author.id).toBe(bob.userId);
    expect((await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.replies).toBe(1);
  });

  it('accepts a reply to a comment on the same post and refuses a parent elsewhere', async () => {
    const post = await createPost(h);
    const other = await createPost(h);
    const parent = await comment(post.id, 'parent');
    const reply = await h.call(alice, 'POST', `/posts/${post.id}/comments`, {
      body: { content: 'reply', parent_id: parent.id },
    });
    expect(reply.body.data.parent_id).toBe(parent.id);
    const elsewhere = await h.call(alice, 'POST', `/posts/${other.id}/comments`, {
      body: { content: 'reply', parent_id: parent.id },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.details).toMatchObject({ field: 'parent_id', code: 'not_found' });
  });

  it('rejects a comment on a locked post with 403 post_locked', async () => {
    const post = await createPost(h);
    await h.call(moderator, 'PUT', `/posts/${post.id}`, { body: { is_locked: true } });
    const res = await h.call(bob, 'POST', `/posts/${post.id}/comments`, { body: { content: 'too late' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('post_locked');
  });

  it.each([
    [{}, 'content', 'required'],
    [{ content: ' ' }, 'content', 'required'],
    [{ content: 'x'.repeat(10_001) }, 'content', 'too_long'],
    [{ content: 'ok', parent_id: 'a' }, 'parent_id', 'invalid_type'],
    [{ content: 'ok', post_id: 3 }, 'post_id', 'unrecognized_key'],
  ])('validates case %# → %s %s', async (body, field, code) => {
    const post = await createPost(h);
    const res = await h.call(bob, 'POST', `/posts/${post.id}/comments`, { body });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });

  it('answers 404 for an unknown post and 403 without write scope', async () => {
    expect((await h.call(bob, 'POST', '/posts/999999/comments', { body: { content: 'x' } })).status).toBe(
      404,
    );
    const post = await createPost(h);
    const res = await h.call(readOnly, 'POST', `/posts/${post.id}/comments`, { body: { content: 'x' } });
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
  });
});

describe('GET /api/v1/posts/{id}/comments', () => {
  it('lists one flat list, replies included, oldest first by default and newest on request', async () => {
    const post = await createPost(h);
    const first = await comment(post.id, 'first');
    const second = await comment(post.id, 'second', alice, first.id);
    const third = await comment(post.id, 'third');
    const oldest = await h.call(alice, 'GET', `/posts/${post.id}/comments`);
    timeListEnvelope(commentSchema).parse(oldest.body);
    expect(oldest.body.data.map((c: { id: number }) => c.id)).toEqual([first.id, second.id, third.id]);
    expect(oldest.body.data[1].parent_id).toBe(first.id);
    const newest = await h.call(alice, 'GET', `/posts/${post.id}/comments?sort=newest&limit=2`);
    expect(newest.body.data.map((c: { id: number }) => c.id)).toEqual([third.id, second.id]);
    expect(newest.body.pagination).toEqual({
      current_page: 1,
      total_pages: 2,
      total_items: 3,
      per_page: 2,
      next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });
    expect(newest.headers.get('link')).toContain('rel="next"');
    expect((await h.call(alice, 'GET', `/posts/${post.id}/comments?sort=best`)).status).toBe(400);
  });
});

describe('GET|PUT|DELETE /api/v1/comments/{id}', () => {
  it('reads one comment and lets its author edit it', async () => {
    const post = await createPost(h);
    const c = await comment(post.id, 'typo');
    expect((await h.call(alice, 'GET', `/comments/${c.id}`)).body.data.content).toBe('typo');
    const res = await h.call(bob, 'PUT', `/comments/${c.id}`, { body: { content: 'fixed' } });
    expect(res.status).toBe(200);
    expect(res.body.data.content).toBe('fixed');
  });

  it('forbids other members, needs moderate for moderators', async () => {
    const post = await createPost(h);
    const c = await comment(post.id, 'mine');
    expect((await h.call(alice, 'PUT', `/comments/${c.id}`, { body: { content: 'x' } })).body.error).toBe(
      'forbidden',
    );
    expect((await h.call(moderatorWithoutScope, 'DELETE', `/comments/${c.id}`)).body.error).toBe(
      'insufficient_scope',
    );
    expect(
      (await h.call(moderator, 'PUT', `/comments/${c.id}`, { body: { content: 'moderated' } })).status,
    ).toBe(200);
  });

  it('soft-deletes a comment: 404 afterwards and replies drop by one', async () => {
    const post = await createPost(h);
    const c = await comment(post.id, 'bye');
    await comment(post.id, 'stays');
    const res = await h.call(bob, 'DELETE', `/comments/${c.id}`);
    expect(res.body).toEqual({ success: true, data: { id: c.id, deleted: true } });
    expect((await h.call(bob, 'GET', `/comments/${c.id}`)).status).toBe(404);
    expect((await h.call(bob, 'DELETE', `/comments/${c.id}`)).status).toBe(404);
    expect((await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.replies).toBe(1);
  });

  it('hides comments of a deleted post', async () => {
    const post = await createPost(h);
    const c = await comment(post.id, 'orphan');
    await h.call(alice, 'DELETE', `/posts/${post.id}`);
    expect((await h.call(bob, 'GET', `/comments/${c.id}`)).status).toBe(404);
  });

  it('likes and unlikes a comment idempotently', async () => {
    const post = await createPost(h);
    const c = await comment(post.id, 'likeable');
    await h.call(alice, 'POST', `/comments/${c.id}/like`);
    const twice = await h.call(alice, 'POST', `/comments/${c.id}/like`);
    expect(twice.body.data).toEqual({ comment_id: c.id, liked: true, likes: 1 });
    const off = await h.call(alice, 'DELETE', `/comments/${c.id}/like`);
    expect(off.body.data).toEqual({ comment_id: c.id, liked: false, likes: 0 });
  });
});
