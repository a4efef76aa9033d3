import { signIdentity } from '@community/http-kit';
import { actor, apiClient } from '@community/test-harness';

/**
 * The identity the gateway adds to a GET made with a read key of member `userId`, from this host,
 * signed for `url` (DESIGN.md §3): what a bench sends when it stands in for the gateway. A signature
 * is good for a few minutes, so a long run signs each request afresh.
 */
export const signedRead = (token: string, userId: number, url: string): Record<string, string> =>
  signIdentity(token, {
    method: 'GET',
    url,
    actor: actor(userId, 'member', ['read']),
    clientIp: '127.0.0.1',
  });

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

let registered = 0;

/**
 * An account registered through the gateway at `gatewayUrl`, on the enterprise plan with limits far
 * above any run, with an API key of `scopes` (`read`).
 */
export async function enterpriseAccount(
  usersUrl: string,
  gatewayUrl: string,
  token: string,
  scopes = ['read'],
): Promise<{ userId: number; key: string }> {
  const users = apiClient(usersUrl, token);
  const name = `bench_${Date.now().toString(36)}_${++registered}`;
  const registration = await fetch(`${gatewayUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: name,
      email: `${name}@example.test`,
      password: 'a long bench password',
    }),
  });
  const registrationBody = (await registration.json()) as { data?: { id: number } };
  if (registration.status !== 201 || !registrationBody.data) {
    throw new Error(`registration answered ${registration.status}: ${JSON.stringify(registrationBody)}`);
  }
  const userId = registrationBody.data.id;
  const owner = actor(userId, 'member', ['read', 'write', 'keys', 'webhooks']);
  const key = await users(owner, 'POST', '/keys', { body: { name: 'bench key', scopes } });
  if (key.status !== 201) throw new Error(`key not minted: ${key.text}`);
  const admin = actor(1, 'admin', ['read', 'write', 'moderate', 'admin']);
  const plan = await users(admin, 'PUT', `/users/${userId}/plan`, {
    body: { plan: 'enterprise', hourly_limit: 100_000_000, daily_limit: 1_000_000_000 },
  });
  if (plan.status !== 200) throw new Error(`plan not set: ${plan.text}`);
  return { userId, key: key.body.data.key as string };
}

/**
 * An enterprise account (see {@link enterpriseAccount}) with `posts` posts of its own: what the
 * gateway benches load.
 */
export async function benchAccount(
  usersUrl: string,
  postsUrl: string,
  gatewayUrl: string,
  token: string,
  posts: number,
): Promise<{ userId: number; key: string; ids: number[] }> {
  const account = await enterpriseAccount(usersUrl, gatewayUrl, token);
  const ids = await seedPosts(apiClient(postsUrl, token), account.userId, posts);
  return { ...account, ids };
}
