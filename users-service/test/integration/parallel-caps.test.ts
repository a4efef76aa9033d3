import { signIdentity } from '@community/http-kit';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('parallel_caps');
});
afterAll(() => h?.stop());

/** How many answers had each status: `{201: 20, 429: 5}`. */
const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

const parallel = <T>(n: number, one: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => one(i)));

/** The login form posted as a browser at `ip` would: its CSRF cookie and field, signed by the gateway. */
async function login(ip: string, username: string, password: string): Promise<number> {
  const path = '/account/login';
  const headers = (method: string) =>
    signIdentity(h.config.INTERNAL_TOKEN, { method, url: path, actor: null, clientIp: ip });
  const form = await fetch(h.url + path, { headers: headers('GET') });
  const cookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetch(h.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers('POST'), cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, username, password }).toString(),
  });
  await res.text();
  return res.status;
}

describe('caps hold under parallel requests', () => {
  it('checks at most 10 of 30 parallel wrong passwords, then refuses even the right one', async () => {
    const { user, password } = await registerMember(h);
    const ip = '10.66.0.1';
    const statuses = await parallel(30, () => login(ip, user.username, 'not the password at all'));
    expect(tally(statuses)).toEqual({ 401: 10, 429: 20 });
    expect(await login(ip, user.username, password)).toBe(429);
    // Another address is not locked out.
    expect(await login('10.66.0.2', user.username, password)).toBe(303);
  });

  it('registers exactly 20 of 25 parallel sign-ups from one address', async () => {
    const statuses = await parallel(25, async (i) => {
      const name = `burst_${process.pid}_${i}`;
      const res = await h.call(null, 'POST', '/auth/register', {
        body: { username: name, email: `${name}@example.test`, password: 'a good long password' },
        clientIp: '10.66.1.1',
      });
      return res.status;
    });
    expect(tally(statuses)).toEqual({ 201: 20, 429: 5 });
  });

  it('mints exactly 50 live keys of 56 asked for at once', async () => {
    const { as } = await registerMember(h);
    const statuses = await parallel(56, async (i) => {
      const res = await h.call(as, 'POST', '/keys', { body: { name: `k${i}`, scopes: ['read'] } });
      return res.status;
    });
    expect(tally(statuses)).toEqual({ 201: 50, 409: 6 });
    const [row] = await h.sql<{ n: number }[]>`
      select count(*)::int as n from api_keys where user_id = ${as.userId} and revoked_at is null`;
    expect(row!.n).toBe(50);
  });

  it('registers exactly 20 of 25 OAuth apps asked for at once', async () => {
    const { as } = await registerMember(h);
    const statuses = await parallel(25, async (i) => {
      const res = await h.call(as, 'POST', '/oauth/apps', {
        body: { name: `App ${i}`, redirect_uris: ['https://apps.example/cb'] },
      });
      return res.status;
    });
    expect(tally(statuses)).toEqual({ 201: 20, 409: 5 });
  });
});
