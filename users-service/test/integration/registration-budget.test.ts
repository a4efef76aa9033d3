import { Browser } from '../support/account-browser';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §5: 20 registrations an hour per address — a 409 (name or email taken) included, so
// probing which emails have accounts is bounded by the same budget.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('registration_budget');
});
afterAll(() => h?.stop());

const PASSWORD = 'a good long password';
const register = (clientIp: string, body: Record<string, string>) =>
  h.call(null, 'POST', '/auth/register', { body: { password: PASSWORD, ...body }, clientIp });

/** How many answers had each status: `{409: 20, 429: 5}`. */
const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

it('counts a 409 for a taken email against the 20-an-hour registration budget', async () => {
  const { user } = await registerMember(h);
  const ip = '10.91.0.1';
  for (let i = 0; i < 20; i++) {
    const probe = await register(ip, { username: `probe_${i}`, email: user.email });
    expect([i, probe.status, probe.body.details?.field]).toEqual([i, 409, 'email']);
  }

  const next = await register(ip, { username: 'probe_next', email: user.email });
  const fresh = await register(ip, { username: 'honest_one', email: 'honest_one@example.test' });

  expect([next.status, next.body.error]).toEqual([429, 'rate_limit_exceeded']);
  expect(next.body.retry_after).toBeGreaterThanOrEqual(3500);
  expect(fresh.status).toBe(429);
  expect((await register('10.91.0.2', { username: 'elsewhere', email: user.email })).status).toBe(409);
}, 60_000);

it('answers exactly 20 of 25 parallel probes with 409, the rest with 429', async () => {
  const { user } = await registerMember(h);
  const statuses = await Promise.all(
    Array.from(
      { length: 25 },
      async (_, i) => (await register('10.91.1.1', { username: `par_${i}`, email: user.email })).status,
    ),
  );
  expect(tally(statuses)).toEqual({ 409: 20, 429: 5 });
}, 60_000);

it('counts a 409 on the /account/register page against the same budget as the API', async () => {
  const { user } = await registerMember(h);
  const browser = new Browser(h, '10.91.2.1');
  const csrf = await browser.csrf('/account/register');
  const submit = (username: string) =>
    browser.post('/account/register', { _csrf: csrf, username, email: user.email, password: PASSWORD });
  for (let i = 0; i < 10; i++) expect((await submit(`page_probe_${i}`)).status).toBe(409);
  for (let i = 0; i < 10; i++) {
    expect((await register(browser.ip, { username: `api_probe_${i}`, email: user.email })).status).toBe(409);
  }

  const refused = await submit('page_probe_last');

  expect(refused.status).toBe(429);
  expect(refused.text).toContain('Too many registrations from this address');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(3500);
}, 60_000);
