import { setTimeout as sleep } from 'node:timers/promises';
import {
  adminWithKey,
  gw,
  memberWithKey,
  startStack,
  type GatewayAnswer,
  type Stack,
} from '../support/stack';

// DESIGN.md §10: a strong ETag on every 200 GET, 304 for a matching If-None-Match, and a 304 costs
// nothing — in neither window, and no view of a post.

let stack: Stack;
let admin: string;
let member: { id: number; key: string };
let categoryId: number;

beforeAll(async () => {
  stack = await startStack('conditional');
  admin = (await adminWithKey(stack)).key;
  member = await memberWithKey(stack, ['read', 'write']);
  const category = await gw(stack, 'POST', '/api/v1/categories', { key: admin, body: { name: 'Polling' } });
  categoryId = category.body.data.id;
});
afterAll(() => stack.stop());

/** The views flush runs every second; this waits for one to have run. */
const VIEWS_FLUSHED_MS = 1_300;

const remaining = (res: GatewayAnswer) => Number(res.headers.get('x-ratelimit-remaining'));
const windowsLeft = (res: GatewayAnswer) =>
  [...(res.headers.get('ratelimit') ?? '').matchAll(/"(\w+)";r=(\d+)/g)].map(([, name, r]) => `${name}=${r}`);

async function newPost(title: string): Promise<number> {
  const res = await gw(stack, 'POST', '/api/v1/posts', {
    key: member.key,
    body: { title, content: 'Is anything new?', category_id: categoryId },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function expectFree304(path: string, key: string) {
  const first = await gw(stack, 'GET', path, { key });
  expect(first.status).toBe(200);
  const etag = first.headers.get('etag');
  expect(etag).toMatch(/^"[^"]+"$/);

  const again = await gw(stack, 'GET', path, { key, headers: { 'if-none-match': etag! } });
  expect(again.status).toBe(304);
  expect(again.text).toBe('');
  expect(again.headers.get('etag')).toBe(etag);
  expect(again.headers.get('x-request-id')).toBeTruthy();
  // The 304's headers show the budget after its refund: what the 200 before it left, in both windows.
  expect(remaining(again)).toBe(remaining(first));
  expect(windowsLeft(again)).toEqual(windowsLeft(first));
  expect(windowsLeft(again)).toHaveLength(2);

  // …and the refund really happened: the next counted request takes one from there.
  const next = await gw(stack, 'GET', path, { key });
  expect(remaining(next)).toBe(remaining(first) - 1);
  return { first, etag: etag! };
}

describe('conditional GET', () => {
  it('answers a list 304 for its ETag, free of charge in both windows', async () => {
    await newPost('A list to poll');
    await expectFree304('/api/v1/posts?sort=latest&limit=5', member.key);
  });

  it('answers a user 304 until the profile changes, then 200 with a new tag', async () => {
    // A member of its own: the post the test before made bumps `member`'s posts_count through an
    // event, which may land between two reads here and change the tag (a flake seen in CI).
    const quiet = await memberWithKey(stack, ['read', 'write']);
    const path = `/api/v1/users/${quiet.id}`;
    const { etag } = await expectFree304(path, quiet.key);
    const changed = await gw(stack, 'PUT', '/api/v1/users/me', { key: quiet.key, body: { bio: 'New bio' } });
    expect(changed.status).toBe(200);
    const after = await gw(stack, 'GET', path, { key: quiet.key, headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.body.data.bio).toBe('New bio');
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('answers a post 304 after the views flush, and a 304 is no view', async () => {
    const id = await newPost('Watched');
    const path = `/api/v1/posts/${id}`;
    const first = await gw(stack, 'GET', path, { key: member.key });
    expect(first.body.data.views).toBe(1);
    const etag = first.headers.get('etag')!;

    // Before the flush, with the read pending, and after it: the same post, the same tag.
    expect(
      (await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    await sleep(VIEWS_FLUSHED_MS);
    const polled = await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': etag } });
    expect(polled.status).toBe(304);
    expect(remaining(polled)).toBe(remaining(first));

    await sleep(VIEWS_FLUSHED_MS);
    const read = await gw(stack, 'GET', path, { key: member.key });
    expect(read.status).toBe(200);
    expect(read.body.data.views).toBe(2);
    expect(read.headers.get('etag')).not.toBe(etag);
  });

  // v1.2 (DESIGN.md §21) changed this: `*` made every read free; it is a 304 now charged like a 200.
  it('answers If-None-Match: * with 304 but charges it, and counts a tag that does not match', async () => {
    const path = '/api/v1/categories';
    const first = await gw(stack, 'GET', path, { key: member.key });
    const any = await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': '*' } });
    expect(any.status).toBe(304);
    expect(remaining(any)).toBe(remaining(first) - 1);
    const anyListed = await gw(stack, 'GET', path, {
      key: member.key,
      headers: { 'if-none-match': `${first.headers.get('etag')}, *` },
    });
    expect(anyListed.status).toBe(304);
    expect(remaining(anyListed)).toBe(remaining(first) - 2);
    const stale = await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': '"stale"' } });
    expect(stale.status).toBe(200);
    expect(remaining(stale)).toBe(remaining(first) - 3);
    // A list of tags and the weak form name the same representation (RFC 9110 §13.1.2).
    const listed = `"other", W/${first.headers.get('etag')}`;
    expect(
      (await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': listed } })).status,
    ).toBe(304);
  });

  it('charges a search answered 304: its work was done whatever the answer', async () => {
    const path = '/api/v1/posts?q=conditional';
    const first = await gw(stack, 'GET', path, { key: member.key });
    const etag = first.headers.get('etag')!;
    const again = await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(remaining(again)).toBe(remaining(first) - 1);
  });

  it('tags what the gateway answers itself: the API index and the OpenAPI document', async () => {
    for (const path of ['/api/v1', '/api/v1/openapi.json']) {
      const first = await gw(stack, 'GET', path, { key: member.key });
      const etag = first.headers.get('etag')!;
      const again = await gw(stack, 'GET', path, { key: member.key, headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(remaining(again)).toBe(remaining(first));
    }
  });

  it('marks authenticated answers private to the credential', async () => {
    const res = await gw(stack, 'GET', '/api/v1/posts', { key: member.key });
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });
});

describe('both windows visible', () => {
  it('describes the hour and the day of an account in the IETF headers', async () => {
    const res = await gw(stack, 'GET', '/api/v1/posts', { key: member.key });
    expect(res.headers.get('ratelimit-policy')).toBe('"hour";q=100;w=3600, "day";q=1000;w=86400');
    const match = /^"hour";r=(\d+);t=(\d+), "day";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit')!);
    expect(match).not.toBeNull();
    const [, hourLeft, hourReset, dayLeft, dayReset] = match!.map(Number);
    expect(hourLeft).toBe(remaining(res));
    expect(dayLeft).toBeGreaterThanOrEqual(hourLeft!);
    expect(hourReset).toBeLessThanOrEqual(3600);
    expect(dayReset).toBeLessThanOrEqual(86_400);
    expect(dayReset).toBeGreaterThan(3600);
  });

  it('shows both windows on an anonymous answer, a 401 included', async () => {
    const res = await gw(stack, 'GET', '/api/v1/posts', { key: 'not-a-key' });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"hour";q=\d+;w=3600, "day";q=\d+;w=86400$/);
    expect(res.headers.get('ratelimit')).toMatch(/^"hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
  });
});
