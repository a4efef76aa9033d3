import { waitFor } from '@community/test-harness';
import { createKeyWithSession } from '../../src/client/account';
import type { Answer, Call } from '../../src/client/http';
import { expectEnvelope, expectError } from '../../src/contract';
import { openTarget, type Target } from '../../src/target';
import { tagged } from '../../src/tags';

let target: Target;
beforeAll(async () => {
  target = await openTarget('plans');
}, 120_000);
afterAll(() => target?.close(), 60_000);

const limit = (res: Answer) => Number(res.headers.get('x-ratelimit-limit'));
const remaining = (res: Answer) => Number(res.headers.get('x-ratelimit-remaining'));
const reset = (res: Answer) => Number(res.headers.get('x-ratelimit-reset'));
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `n` requests one after another; each must be allowed. */
async function spend(as: Call, n: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < n; i++) {
    const res = await as('GET', '/api/v1/users/me');
    expectEnvelope(res);
    if (res.status !== 200) throw new Error(`request ${i + 1} of ${n}: ${res.status} ${res.text}`);
    answers.push(res);
  }
  return answers;
}

function expectLimited(res: Answer, maxRetryAfter: number) {
  expectError(res, 429, 'rate_limit_exceeded');
  expect(res.body.retry_after).toBeGreaterThanOrEqual(1);
  expect(res.body.retry_after).toBeLessThanOrEqual(maxRetryAfter);
  expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after));
  expect(remaining(res)).toBe(0);
}

tagged('plans')('plans and limits', () => {
  it('gives a free account 100 requests an hour, shared by all its keys, and answers the 101st with 429', async () => {
    const { world } = target;
    const member = await world.member();
    const answers = await spend(world.as(member), 100);
    expect(answers.map(limit)).toEqual(Array(100).fill(100));
    expect(answers.map(remaining)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    const resetAt = reset(answers[0]!);
    expect(resetAt).toBeGreaterThan(nowSeconds());
    expect(resetAt).toBeLessThanOrEqual(nowSeconds() + 3601);

    const refused = await world.as(member)('GET', '/api/v1/users/me');
    expectLimited(refused, 3600);
    // Another key of the same account draws on the same budget.
    const other = await createKeyWithSession(member.browser, target.baseUrl, {
      name: 'other',
      scopes: ['read'],
    });
    expectLimited(await world.call('GET', '/api/v1/posts', { key: other.key, ip: member.ip }), 3600);
  });

  it('applies an enterprise account’s custom limits, and a raised cap keeps the count', async () => {
    const { world } = target;
    const member = await world.member({ plan: { plan: 'enterprise', hourly_limit: 7, daily_limit: 500 } });
    const answers = await spend(world.as(member), 7);
    expect(answers.map(limit)).toEqual(Array(7).fill(7));
    expect(remaining(answers[6]!)).toBe(0);
    expectLimited(await world.as(member)('GET', '/api/v1/users/me'), 3600);
    // A refused request costs nothing: the 7 allowed ones are all that was counted.
    await world.setPlan(member.id, { plan: 'enterprise', hourly_limit: 20, daily_limit: 500 });
    const raised = await waitFor(
      async () => {
        const res = await world.as(member)('GET', '/api/v1/users/me');
        return res.status === 200 ? res : null;
      },
      { timeoutMs: 5_000, what: 'the raised limit to apply' },
    );
    expect([limit(raised), remaining(raised)]).toEqual([20, 12]);
  });

  it('enforces the daily window when it is the tighter one, with a reset a day away', async () => {
    const { world } = target;
    const member = await world.member({ plan: { plan: 'enterprise', hourly_limit: 50, daily_limit: 4 } });
    const answers = await spend(world.as(member), 4);
    // The window with fewer requests left is the one shown.
    expect(answers.map(limit)).toEqual([4, 4, 4, 4]);
    expect(answers.map(remaining)).toEqual([3, 2, 1, 0]);
    expect(reset(answers[0]!)).toBeGreaterThan(nowSeconds() + 3600);
    // Reset is rounded up to the next whole second.
    expect(reset(answers[0]!)).toBeLessThanOrEqual(nowSeconds() + 86_401);
    const refused = await world.as(member)('GET', '/api/v1/users/me');
    expectLimited(refused, 86_400);
    expect(refused.body.retry_after).toBeGreaterThan(3600);
  });

  it('returns a downgraded account to the free plan’s limits', async () => {
    const { world } = target;
    const member = await world.member({ plan: { plan: 'pro' } });
    const pro = await world.as(member)('GET', '/api/v1/users/me');
    expect([pro.body.data.plan, limit(pro)]).toEqual(['pro', 5000]);
    await world.setPlan(member.id, { plan: 'free' });
    let sent = 1;
    const free = await waitFor(
      async () => {
        sent += 1;
        const res = await world.as(member)('GET', '/api/v1/users/me');
        return limit(res) === 100 ? res : null;
      },
      { timeoutMs: 5_000, what: 'the free limit to apply' },
    );
    expect(free.body.data.plan).toBe('free');
    // Same windows, smaller cap: every request so far still counts.
    expect(remaining(free)).toBe(100 - sent);
  });
});
