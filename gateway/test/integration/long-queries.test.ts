import { adminWithKey, gw, memberWithKey, startStack } from '../support/stack';
import { breakerState } from '../support/raw-http';

/** A member's key, and every list the gateway serves, each with something in it. */
async function setUp() {
  const stack = await startStack('gwqueries');
  const admin = await adminWithKey(stack);
  const category = await gw(stack, 'POST', '/api/v1/categories', {
    key: admin.key,
    body: { name: 'Queries' },
  });
  const { key } = await memberWithKey(stack, ['read', 'write', 'keys', 'webhooks']);
  const post = await gw(stack, 'POST', '/api/v1/posts', {
    key,
    body: { title: 'Long queries', content: 'a post to comment on', category_id: category.body.data.id },
  });
  const postId = post.body.data.id;
  await gw(stack, 'POST', `/api/v1/posts/${postId}/comments`, { key, body: { content: 'first' } });
  const webhook = await gw(stack, 'POST', '/api/v1/webhooks', {
    key,
    body: { url: 'http://127.0.0.1:9/hook', events: ['post.created'] },
  });
  const lists = [
    '/api/v1/posts',
    '/api/v1/categories',
    '/api/v1/users',
    `/api/v1/posts/${postId}/comments`,
    '/api/v1/webhooks',
    `/api/v1/webhooks/${webhook.body.data.id}/deliveries`,
    '/api/v1/keys',
    '/api/v1/oauth/apps',
  ];
  return { stack, key, lists };
}

let t: Awaited<ReturnType<typeof setUp>>;
beforeAll(async () => {
  t = await setUp();
}, 60_000);
afterAll(() => t.stack.stop());

const linksOf = (header: string) =>
  header.split(', ').map((part) => new URL(/^<([^>]+)>; rel="\w+"$/.exec(part)![1]!));

describe('a 9 KB query string on every list', () => {
  it('leaves Link with only the documented parameters, small, and every breaker closed', async () => {
    const junk = 'x'.repeat(9_000);
    for (const path of t.lists) {
      // Six per list: on the old code six such requests opened the service's breaker.
      for (let i = 0; i < 6; i++) {
        const res = await gw(t.stack, 'GET', `${path}?limit=1&junk=${junk}&also=${junk.slice(0, 100)}`, {
          key: t.key,
        });
        expect([path, res.status]).toEqual([path, 200]);
        const link = res.headers.get('link')!;
        expect(link.length).toBeLessThan(1_000);
        for (const url of linksOf(link)) {
          expect([path, [...url.searchParams.keys()].sort()]).toEqual([path, ['limit', 'page']]);
          expect(url.pathname).toBe(path);
        }
      }
    }
    for (const upstream of ['posts', 'users', 'webhooks'])
      expect(await breakerState(t.stack.gateway, upstream)).toBe(0);
  }, 60_000);

  it('keeps the documented filters a request used, with their validated values', async () => {
    const posts = await gw(t.stack, 'GET', '/api/v1/posts?limit=1&sort=popular&tag=Intro&junk=1', {
      key: t.key,
    });
    for (const url of linksOf(posts.headers.get('link')!)) {
      expect(Object.fromEntries(url.searchParams)).toEqual({
        sort: 'popular',
        tag: 'intro',
        page: '1',
        limit: '1',
      });
    }
    const users = await gw(t.stack, 'GET', '/api/v1/users?sort=reputation', { key: t.key });
    expect(linksOf(users.headers.get('link')!)[0]!.searchParams.get('sort')).toBe('reputation');
  });
});
