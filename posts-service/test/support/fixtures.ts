import { startPostsService, type PostsHarness } from './posts-harness';
import { actor } from '@community/test-harness';

export const alice = actor(101);
export const bob = actor(102);
export const readOnly = actor(103, 'member', ['read']);
export const moderator = actor(201, 'moderator', ['read', 'write', 'moderate']);
export const moderatorWithoutScope = actor(202, 'moderator', ['read', 'write']);

export async function createCategory(
  h: PostsHarness,
  name = `Category ${Math.random().toString(36).slice(2, 8)}`,
) {
  const res = await h.call(h.admin, 'POST', '/categories', { body: { name } });
  if (res.status !== 201) throw new Error(`category not created: ${res.text}`);
  return res.body.data as { id: number; name: string; slug: string };
}

/** posts-service on port 0 with the one category a test file posts into. */
export async function startWithCategory(label: string, categoryName: string) {
  const h = await startPostsService(label);
  return { h, category: (await createCategory(h, categoryName)).id };
}

export async function createPost(
  h: PostsHarness,
  as = alice,
  fields: Partial<{ title: string; content: string; category_id: number; tags: string[] }> = {},
) {
  const category_id = fields.category_id ?? (await createCategory(h)).id;
  const res = await h.call(as, 'POST', '/posts', {
    body: { title: 'A post', content: 'Some content', ...fields, category_id },
  });
  if (res.status !== 201) throw new Error(`post not created: ${res.text}`);
  return res.body.data as { id: number; title: string; category: { id: number } };
}

/** Registers a replicated author profile directly, as the user events would. */
export async function seedAuthor(h: PostsHarness, id: number, username: string, displayName: string) {
  await h.sql`
    insert into authors (id, username, display_name, avatar, source_timestamp)
    values (${id}, ${username}, ${displayName}, ${null}, now())
    on conflict (id) do update set username = excluded.username, display_name = excluded.display_name`;
}
