import { actor, publishEvents, testEnvelope, waitFor } from '@community/test-harness';
import { alice, bob, createCategory, createPost, moderator, seedAuthor } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §20 in posts-service: `user.erased` forgets the member; hidden content publishes
// nothing while hidden, and its unhide publishes the post as it is.

let h: PostsHarness;
let category: number;
beforeAll(async () => {
  h = await startPostsService('erasure');
  category = (await createCategory(h)).id;
});
afterAll(() => h.stop());

const outboxAbout = async (postId: number) =>
  (
    await h.sql<{ payload: string }[]>`
    select payload::text as payload from outbox
    where payload->>'event' in ('post.created', 'post.updated', 'post.deleted', 'post.unliked')
      and (payload->'data'->>'id' = ${String(postId)} or payload->'data'->>'post_id' = ${String(postId)})
    order by id`
  ).map((row) => {
    // As sent: the database client would camel-case the keys of a json column.
    const { event, data } = JSON.parse(row.payload) as { event: string; data: Record<string, unknown> };
    return { event, data };
  });

let next = 9000;
const member = () => actor(++next);

describe('user.erased', () => {
  it('anonymises the author, takes its likes out of the counts and its open flags away, keeps its content', async () => {
    const erased = member();
    await seedAuthor(h, erased.userId, 'ada', 'Ada Lovelace');
    const own = await createPost(h, erased, { category_id: category, title: 'Kept, anonymised' });
    const liked = await createPost(h, alice, { category_id: category });
    expect((await h.call(erased, 'POST', `/posts/${liked.id}/like`)).status).toBe(200);
    expect((await h.call(bob, 'POST', `/posts/${liked.id}/like`)).status).toBe(200);
    const commented = await h.call(alice, 'POST', `/posts/${liked.id}/comments`, { body: { content: 'hi' } });
    expect((await h.call(erased, 'POST', `/comments/${commented.body.data.id}/like`)).status).toBe(200);
    expect(
      (await h.call(erased, 'POST', `/posts/${liked.id}/flags`, { body: { reason: 'spam' } })).status,
    ).toBe(201);

    const event = testEnvelope('user.erased', { id: erased.userId, content: 'keep' });
    await publishEvents(h.exchange, [event]);
    await waitFor(
      async () => (await h.sql`select 1 from processed_events where event_id = ${event.id}`).length,
      {
        what: 'the erasure applied',
      },
    );
    // Redelivered: applied once.
    await publishEvents(h.exchange, [event]);

    const read = (await h.call(bob, 'GET', `/posts/${own.id}`)).body.data;
    expect([read.title, read.author.id, read.author.username, read.author.display_name]).toEqual([
      'Kept, anonymised',
      erased.userId,
      `deleted-${erased.userId}`,
      `deleted-${erased.userId}`,
    ]);
    expect((await h.call(bob, 'GET', `/posts/${liked.id}`)).body.data.likes).toBe(1);
    const [comment] = await h.sql<
      { likes: number }[]
    >`select likes from comments where id = ${commented.body.data.id}`;
    expect(comment!.likes).toBe(0);
    expect(await h.sql`select 1 from flags where flagger_id = ${erased.userId}`).toHaveLength(0);
    // The liked post's author loses the like from their reputation: post.unliked tells users-service.
    expect((await outboxAbout(liked.id)).filter((e) => e.event === 'post.unliked')).toEqual([
      { event: 'post.unliked', data: { post_id: liked.id, user_id: erased.userId, author_id: alice.userId } },
    ]);
  });

  it('with content delete: soft-deletes the posts and comments as their deletes do', async () => {
    const erased = member();
    const post = await createPost(h, erased, { category_id: category });
    const other = await createPost(h, alice, { category_id: category });
    const comment = await h.call(erased, 'POST', `/posts/${other.id}/comments`, {
      body: { content: 'mine' },
    });
    await publishEvents(h.exchange, [testEnvelope('user.erased', { id: erased.userId, content: 'delete' })]);
    await waitFor(async () => (await h.call(bob, 'GET', `/posts/${post.id}`)).status === 404, {
      what: 'the post deleted',
    });
    expect((await h.call(bob, 'GET', `/posts/${other.id}`)).body.data.comments_count ?? 0).toBe(0);
    const [gone] = await h.sql<{ deleted: boolean }[]>`
      select deleted_at is not null as deleted from comments where id = ${comment.body.data.id}`;
    expect(gone!.deleted).toBe(true);
    expect((await outboxAbout(post.id)).map((e) => e.event)).toEqual(['post.created', 'post.deleted']);
  });
});

describe('hidden content publishes nothing while hidden', () => {
  it('an edit while hidden goes out nowhere; the unhide publishes post.updated with the current title', async () => {
    const post = await createPost(h, alice, { category_id: category, title: 'Before the hide' });
    const flag = await h.call(bob, 'POST', `/posts/${post.id}/flags`, { body: { reason: 'spam' } });
    const hide = await h.call(moderator, 'PUT', `/flags/${flag.body.data.id}`, {
      body: { status: 'resolved', action: 'hide' },
    });
    expect(hide.status).toBe(200);
    const edit = await h.call(alice, 'PUT', `/posts/${post.id}`, { body: { title: 'Edited while hidden' } });
    expect(edit.status).toBe(200);
    expect((await outboxAbout(post.id)).map((e) => e.event)).toEqual(['post.created']);

    const again = await h.call(
      actor(8999, 'moderator', ['read', 'write', 'moderate']),
      'POST',
      `/posts/${post.id}/flags`,
      {
        body: { reason: 'other' },
      },
    );
    expect(again.status).toBe(201);
    const show = await h.call(moderator, 'PUT', `/flags/${again.body.data.id}`, {
      body: { status: 'dismissed' },
    });
    expect(show.status).toBe(200);
    expect(await outboxAbout(post.id)).toEqual([
      { event: 'post.created', data: { id: post.id, title: 'Before the hide', author_id: alice.userId } },
      {
        event: 'post.updated',
        data: { id: post.id, title: 'Edited while hidden', author_id: alice.userId, changed: [] },
      },
    ]);
  });
});
