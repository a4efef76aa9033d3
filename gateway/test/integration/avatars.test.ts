import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// Default avatars pass the gateway before keys and limits, like /docs: a page listing 50 users loads
// 50 pictures, which must not come out of the anonymous budget or need a key in an <img> tag.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('avatars', {
    ANON_HOURLY_LIMIT: '3',
    ANON_DAILY_LIMIT: '10',
    AVATARS_PER_MINUTE: '40',
    TRUST_PROXY: 'loopback',
  });
});
afterAll(() => stack?.stop());

it('answers 30 avatars in a burst from one address with no key, counting none against its 3/hour', async () => {
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => gw(stack, 'GET', `/avatars/${i + 1}.svg`)),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
  expect(answers.every((a) => a.headers.get('x-ratelimit-limit') === null)).toBe(true);
  // The whole anonymous budget is still there.
  const info = await gw(stack, 'GET', '/api/v1/openapi.json');
  expect(info.headers.get('x-ratelimit-remaining')).toBe('2');
});

it('ignores a credential sent along, valid or not, and never forwards it', async () => {
  const member = await memberWithKey(stack);
  for (const authorization of [`Bearer ${member.key}`, 'Bearer cpk_not_a_real_key', 'Basic Zm9vOmJhcg==']) {
    const res = await gw(stack, 'GET', '/avatars/7.svg', {
      headers: { authorization, cookie: 'cp_session=x' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  }
});

it('answers a path that is not an avatar with the 404 envelope, and other methods with 405', async () => {
  const missing = await gw(stack, 'GET', '/avatars/..%2Fapi%2Fv1%2Fusers.svg');
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ error: 'not_found' });
  const post = await gw(stack, 'POST', '/avatars/1.svg', { undocumented: true });
  expect(post.status).toBe(405);
  expect(post.body).toMatchObject({ error: 'method_not_allowed' });
});

// DESIGN.md §21: one address sent 32,399 avatar requests in 15 s and every bystander slowed down.
it('holds one address to its avatars budget a minute with 429, and serves another address meanwhile', async () => {
  const from = (ip: string, i: number) =>
    gw(stack, 'GET', `/avatars/${i}.svg`, { headers: { 'x-forwarded-for': ip } });
  const answers = await Promise.all(Array.from({ length: 45 }, (_, i) => from('198.51.100.7', i + 1)));
  expect(answers.filter((a) => a.status === 200)).toHaveLength(40);
  const refused = answers.filter((a) => a.status === 429);
  expect(refused).toHaveLength(5);
  expect(refused[0]!.body).toMatchObject({ error: 'rate_limit_exceeded' });
  expect(refused[0]!.body.retry_after).toBeGreaterThanOrEqual(1);
  expect(refused[0]!.body.retry_after).toBeLessThanOrEqual(60);
  expect(refused[0]!.headers.get('retry-after')).toBe(String(refused[0]!.body.retry_after));

  expect((await from('198.51.100.8', 1)).status).toBe(200);
});
