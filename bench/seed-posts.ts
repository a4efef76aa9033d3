import { actor, type apiClient } from '@community/test-harness';

/**
 * `count` posts by member `authorId` in a new category, straight on posts-service: the rotation the
 * single-post benches read. Each ~560 bytes of text, so every answer is the same size.
 */
export async function seedPosts(
  call: ReturnType<typeof apiClient>,
  authorId: number,
  count: number,
): Promise<number[]> {
  const admin = actor(1, 'admin', ['read', 'write', 'moderate', 'admin']);
  const category = await call(admin, 'POST', '/categories', { body: { name: 'Bench' } });
  if (category.status !== 201) throw new Error(`category not created: ${category.text}`);
  const ids: number[] = [];
  for (let i = 1; i <= count; i++) {
    const post = await call(actor(authorId, 'member', ['read', 'write']), 'POST', '/posts', {
      body: {
        title: `Bench post ${i}`,
        content: 'Lorem ipsum dolor sit amet. '.repeat(20),
        category_id: category.body.data.id,
        tags: ['bench'],
      },
    });
    if (post.status !== 201) throw new Error(`post not created: ${post.text}`);
    ids.push(post.body.data.id as number);
  }
  return ids;
}
