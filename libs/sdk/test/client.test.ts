import { CommunityApiError, createClient } from '@community/sdk';
import { clientOf, lossyProxy, stackOfFile, UNLIMITED } from './support/stack';

// The SDK against the real stack: every service as a process, through the gateway.
const target = stackOfFile('sdk_client');

const uniqueTag = () => `sdk${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

async function writer() {
  const { world } = target();
  const member = await world.member({ plan: UNLIMITED });
  return { member, api: clientOf(target(), member), categoryId: await world.category() };
}

describe('operation methods', () => {
  it('create and read a post, resolving to the documented body', async () => {
    const { api, categoryId } = await writer();
    const created = await api.createPost({
      body: { title: 'From the SDK', content: 'Typed end to end', category_id: categoryId, tags: ['sdk'] },
    });
    expect(created).toMatchObject({ success: true, data: { title: 'From the SDK', tags: ['sdk'] } });
    const read = await api.getPost({ path: { id: created.data.id } });
    expect(read.data).toMatchObject({ id: created.data.id, content: 'Typed end to end' });
    const comment = await api.createComment({ path: { id: created.data.id }, body: { content: 'First!' } });
    expect(comment.data.post_id).toBe(created.data.id);
  });

  it('rejects a non-2xx with CommunityApiError carrying code, details and the request id', async () => {
    const { api } = await writer();
    const missing = await api.getPost({ path: { id: 987654321 } }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(CommunityApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', retryAfter: null });
    expect((missing as CommunityApiError).requestId).toMatch(/\S+/);

    const invalid = await api
      .createPost({ body: { title: '', content: 'x', category_id: 1 } })
      .catch((err: unknown) => err as CommunityApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error', details: { field: 'title' } });
  });

  it('keeps the latest limit headers in lastRateLimit', async () => {
    const { world } = target();
    const member = await world.member({ plan: { plan: 'enterprise', hourly_limit: 50, daily_limit: 500 } });
    const api = clientOf(target(), member);
    expect(api.lastRateLimit).toBeNull();
    await api.getMe();
    await api.getMe();
    expect(api.lastRateLimit).toEqual({
      limit: 50,
      remaining: 48,
      reset: expect.any(Number),
      policy: '"hour";q=50;w=3600, "day";q=500;w=86400',
    });
    expect(api.lastRateLimit!.reset).toBeGreaterThan(Date.now() / 1000);
  });
});

describe('retries', () => {
  it('retries a POST whose answer was lost after the server acted: one post, the same one', async () => {
    const { member, categoryId } = await writer();
    let lost = 0;
    const proxy = await lossyProxy(target().baseUrl, (req) => req.method === 'POST' && lost++ === 0);
    try {
      const api = clientOf({ ...target(), baseUrl: proxy.url }, member);
      const tag = uniqueTag();
      const created = await api.createPost({
        body: {
          title: 'Exactly once',
          content: 'The first answer never arrives',
          category_id: categoryId,
          tags: [tag],
        },
      });

      const posts = proxy.seen.filter((req) => req.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
      const listed = await clientOf(target(), member).listPosts({ query: { tag } });
      expect(listed.data.map((post) => post.id)).toEqual([created.data.id]);
    } finally {
      await proxy.close();
    }
  });

  it('sends the Idempotency-Key given, and none to the OAuth protocol endpoints', async () => {
    const { member } = await writer();
    const proxy = await lossyProxy(target().baseUrl, () => false);
    try {
      const api = clientOf({ ...target(), baseUrl: proxy.url }, member);
      await api.markNotificationsRead({ body: { all: true }, idempotencyKey: 'sdk-key-1' });
      await expect(
        api.token({ body: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' } }),
      ).rejects.toMatchObject({ code: 'invalid_client' });
      const [mark, token] = proxy.seen;
      expect(mark!.headers['idempotency-key']).toBe('sdk-key-1');
      expect(token!.headers['idempotency-key']).toBeUndefined();
      expect(token!.headers.authorization).toBeUndefined();
      expect(token!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    } finally {
      await proxy.close();
    }
  });

  it('waits out a 429 with Retry-After, then succeeds', async () => {
    const { member } = await writer();
    const api = clientOf(target(), member);
    // Five streams are the most an account may hold open (DESIGN.md §13): the sixth is 429, Retry-After 5.
    const held = Array.from({ length: 5 }, () => new AbortController());
    const opened = held.map((controller) => api.streamNotifications({ signal: controller.signal }));
    const pending = opened.map((stream) => stream.next());
    await waitForStreams(member.key, 5);

    const refused = await clientOf(target(), member, { maxRetries: 0 })
      .streamNotifications()
      .next()
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 429, retryAfter: 5 });

    const started = Date.now();
    const sixth = new AbortController();
    const waiting = api.streamNotifications({ signal: sixth.signal });
    const first = waiting.next();
    setTimeout(() => held[0]!.abort(), 1_000);
    const { member: other, categoryId } = await writer();
    // The sixth is open once a notification reaches it: a like of the member's post makes one.
    const post = await api.createPost({ body: { title: 'Liked', content: 'x', category_id: categoryId } });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await clientOf(target(), other).likePost({ path: { id: post.data.id } });
    const { value } = await first;
    expect(value).toMatchObject({ kind: 'like' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    sixth.abort();
    held.forEach((controller) => controller.abort());
    await Promise.allSettled(pending);
  }, 30_000);

  it('rejects at once when Retry-After is longer than maxRetryWaitMs', async () => {
    const { world } = target();
    const member = await world.member({ plan: { plan: 'enterprise', hourly_limit: 2, daily_limit: 100 } });
    const api = clientOf(target(), member);
    await api.getMe();
    await api.getMe();
    const started = Date.now();
    const error = (await api.getMe().catch((err: unknown) => err)) as CommunityApiError;
    expect(error).toBeInstanceOf(CommunityApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(error.retryAfter).toBeGreaterThan(60);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(api.lastRateLimit).toMatchObject({ limit: 2, remaining: 0 });
  });
});

/** Polls until the gateway holds `count` open streams of the account (a seventh would be refused). */
async function waitForStreams(key: string, count: number): Promise<void> {
  const probe = createClient({ baseUrl: target().baseUrl, apiKey: key, maxRetries: 0 });
  for (let tries = 0; tries < 50; tries++) {
    const controller = new AbortController();
    const stream = probe.streamNotifications({ signal: controller.signal });
    const outcome = await Promise.race([
      stream.next().then(
        () => 'open',
        (err: unknown) => (err instanceof CommunityApiError && err.status === 429 ? 'full' : 'open'),
      ),
      new Promise((resolve) => setTimeout(() => resolve('open'), 300)),
    ]);
    controller.abort();
    await stream.return();
    if (outcome === 'full') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the account never held ${count} streams`);
}

describe('paginate', () => {
  it('walks more than three pages by cursor, each item once, while new posts arrive', async () => {
    const { member, api, categoryId } = await writer();
    const pages: URL[] = [];
    const walker = clientOf(target(), member, {
      fetch: (input, init) => {
        pages.push(new URL(String(input)));
        return fetch(input, init);
      },
    });
    const tag = uniqueTag();
    const create = (title: string) =>
      api.createPost({ body: { title, content: 'paged', category_id: categoryId, tags: [tag] } });
    const before: number[] = [];
    for (let i = 0; i < 7; i++) before.push((await create(`Old ${i}`)).data.id);

    const seen: number[] = [];
    for await (const post of walker.paginate('listPosts', { query: { tag, limit: 2 } })) {
      seen.push(post.id);
      if (seen.length === 2) await create('New while walking');
    }
    expect(seen.filter((id) => before.includes(id)).sort()).toEqual([...before].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.slice(1).every((url) => url.searchParams.has('cursor'))).toBe(true);
  });

  it('follows the Link header of a list paged by number', async () => {
    const { world } = target();
    const admin = await world.admin();
    const api = clientOf(target(), admin);
    for (let i = 0; i < 3; i++) await api.createCategory({ body: { name: `SDK paged ${uniqueTag()}` } });
    const total = (await api.listCategories()).pagination;
    const names: string[] = [];
    for await (const category of api.paginate('listCategories', { query: { limit: 1 } }))
      names.push(category.name);
    expect(names.length).toBe('total_items' in total ? total.total_items : NaN);
    expect(names.length).toBeGreaterThan(3);
    expect(new Set(names).size).toBe(names.length);
  });
});
