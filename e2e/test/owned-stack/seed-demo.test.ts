import type { Call } from '../../src/client/http';
import { expectStatus } from '../../src/client/http';
import { DEMO_MEMBERS, DEMO_POSTS, demoPlan, MOST_LIKED_POST } from '../../src/seed/plan';
import { seedDemo } from '../../src/seed/seed-demo';
import { openOwnedTarget, targetOfFile } from '../../src/target';

// DESIGN.md §19: `npm run seed:demo` fills an empty stack through the public API, and a second run
// finds its members and adds nothing. The stack is started as SEED_DEMO=true starts one.
const target = targetOfFile(() =>
  openOwnedTarget('seed_demo', { env: { REGISTRATIONS_PER_HOUR_PER_IP: '1000' } }),
);

/** What anyone can count through the API: the totals a second run must leave as they are. */
async function census(call: Call) {
  const total = async (path: string) =>
    expectStatus(await call('GET', path), 200).body.pagination.total_items;
  const categories = expectStatus(await call('GET', '/api/v1/categories?limit=100'), 200).body.data;
  const tags = expectStatus(await call('GET', '/api/v1/tags?limit=100'), 200).body.data;
  return {
    posts: await total('/api/v1/posts?limit=1'),
    comments: await total('/api/v1/comments?limit=1'),
    flags: await total('/api/v1/flags?limit=1'),
    categories: (categories as { name: string; post_count: number }[]).map((c) => [c.name, c.post_count]),
    tags: (tags as { name: string; post_count: number }[]).map((t) => [t.name, t.post_count]),
  };
}

const titles = async (call: Call, query: string) =>
  (
    expectStatus(await call('GET', `/api/v1/posts?${query}`), 200).body.data as {
      id: number;
      title: string;
    }[]
  ).map((post) => post.title);

describe('npm run seed:demo', () => {
  it('fills an empty stack with a believable community, and a second run adds nothing', async () => {
    const { owned, world } = target();
    const plan = demoPlan();
    const first = await seedDemo({ baseUrl: owned.baseUrl, admin: owned.admin });
    expect(first.added).toEqual({
      members: DEMO_MEMBERS,
      categories: 8,
      posts: DEMO_POSTS,
      comments: plan.posts.reduce((sum, post) => sum + post.comments.length, 0),
      likes: plan.posts.reduce((sum, post) => sum + post.likers.length, 0),
      flags: 2,
      webhooks: 3,
    });
    const admin = world.as(await world.admin());
    const before = await census(admin);
    expect(before).toMatchObject({ posts: DEMO_POSTS, flags: 2 });

    const second = await seedDemo({ baseUrl: owned.baseUrl, admin: owned.admin });
    expect(Object.values(second.added).every((count) => count === 0)).toBe(true);
    expect(second.found).toEqual({ members: DEMO_MEMBERS, posts: DEMO_POSTS });
    expect(await census(admin)).toEqual(before);

    // Visible through the lists a newcomer calls first: popular and trending lead differently.
    const popular = await titles(admin, 'sort=popular&limit=5');
    const trending = await titles(admin, 'sort=trending&limit=5');
    expect(popular[0]).toBe(plan.posts[MOST_LIKED_POST]!.title);
    expect(trending).not.toEqual(popular);
    expect((await titles(admin, 'q=sourdough&limit=5')).length).toBeGreaterThan(0);
    const espresso = expectStatus(await admin('GET', '/api/v1/tags?q=espresso'), 200).body.data;
    expect(espresso[0]).toMatchObject({ name: 'espresso', post_count: expect.any(Number) });
    expect((await titles(admin, 'tag=espresso&limit=5')).length).toBeGreaterThan(0);
  }, 900_000);
});
