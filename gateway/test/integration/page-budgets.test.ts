import { registerApp, signedInMember } from '../support/oauth';
import { gw, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gwpages', {
    PAGES_HOURLY_LIMIT: '20',
    ANON_HOURLY_LIMIT: '40',
    // Each test names its own client address, as a load balancer in front would.
    TRUST_PROXY: 'loopback',
  });
});
afterAll(async () => {
  await stack.stop();
});

const budget = (headers: Headers) => ({
  limit: Number(headers.get('x-ratelimit-limit')),
  remaining: Number(headers.get('x-ratelimit-remaining')),
});

describe('the account pages and /docs', () => {
  it('have a per-address budget of their own (PAGES_HOURLY_LIMIT), apart from the API', async () => {
    const from = { 'x-forwarded-for': '203.0.113.50' };
    const api = async () => budget((await gw(stack, 'GET', '/api/v1', { headers: from })).headers);
    const apiBefore = await api();
    for (let i = 1; i <= 20; i++) {
      const page = await fetch(`${stack.gateway}/account/login`, { headers: from });
      await page.text();
      expect([page.status, budget(page.headers)]).toEqual([200, { limit: 20, remaining: 20 - i }]);
    }
    const over = await fetch(`${stack.gateway}/account/login`, { headers: from });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: string }).error).toBe('rate_limit_exceeded');
    const docs = await fetch(`${stack.gateway}/docs`, { headers: from });
    expect([docs.status, ((await docs.json()) as { error: string }).error]).toEqual([
      429,
      'rate_limit_exceeded',
    ]);

    // Browsing took nothing from the address's API budget.
    expect(await api()).toEqual({ limit: 40, remaining: apiBefore.remaining - 1 });
  });

  it('counts /docs and its assets against the same pages budget', async () => {
    const from = { 'x-forwarded-for': '203.0.113.51' };
    const page = await fetch(`${stack.gateway}/docs`, { headers: from });
    await page.text();
    expect([page.status, budget(page.headers)]).toEqual([200, { limit: 20, remaining: 19 }]);
    const asset = await fetch(`${stack.gateway}/docs/assets/swagger-ui.css`, { headers: from });
    await asset.text();
    expect([asset.status, budget(asset.headers)]).toEqual([200, { limit: 20, remaining: 18 }]);
    const account = await fetch(`${stack.gateway}/account/register`, { headers: from });
    await account.text();
    expect(budget(account.headers)).toEqual({ limit: 20, remaining: 17 });
  });
});

describe('the OAuth token endpoint', () => {
  it('counts per client_id once users-service accepted that client, and unknown clients per address', async () => {
    const member = await signedInMember(stack);
    const app = await registerApp(stack, member.key);
    const secret = app.client_secret!;
    // The first grant makes the client known; until then it counted against the caller's address.
    expect((await token(app.client_id, secret, '198.51.100.1')).status).toBe(200);

    // A known client has its own budget, whichever address it calls from.
    expect(await token(app.client_id, secret, '198.51.100.1')).toEqual({
      status: 200,
      limit: 40,
      remaining: 39,
    });
    expect((await token(app.client_id, secret, '198.51.100.2')).remaining).toBe(38);

    // Invented client ids buy nothing: they share their address's anonymous budget.
    const left = await addressBudgetLeft('198.51.100.3');
    expect(await token('invented-1', 'secret', '198.51.100.3')).toEqual({
      status: 401,
      error: 'invalid_client',
      limit: 40,
      remaining: left - 1,
    });
    expect((await token('invented-2', 'secret', '198.51.100.3')).remaining).toBe(left - 2);
  }, 30_000);

  it('charges a failed request naming a known client to the caller, so nobody can spend an app’s budget', async () => {
    const member = await signedInMember(stack);
    const app = await registerApp(stack, member.key);
    const secret = app.client_secret!;
    expect((await token(app.client_id, secret, '198.51.100.10')).status).toBe(200);
    expect((await token(app.client_id, secret, '198.51.100.10')).remaining).toBe(39);

    // Someone naming the app with a wrong secret: each failure goes to their address…
    const attacker = '198.51.100.66';
    const before = await addressBudgetLeft(attacker);
    for (let i = 0; i < 3; i++) expect((await token(app.client_id, 'wrong', attacker)).status).toBe(401);
    expect(await addressBudgetLeft(attacker)).toBe(before - 4);
    // …and none to the app.
    expect((await token(app.client_id, secret, '198.51.100.10')).remaining).toBe(38);

    // Once that address has spent its budget it is not let in on the app's budget either.
    while ((await token(app.client_id, 'wrong', attacker)).status !== 429);
    expect((await token(app.client_id, secret, attacker)).status).toBe(429);
    expect((await token(app.client_id, secret, '198.51.100.10')).remaining).toBe(37);
  }, 60_000);
});

async function token(clientId: string, secret: string, address: string) {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString(
    'base64',
  );
  const res = await gw(stack, 'POST', '/api/v1/oauth/token', {
    rawBody: 'grant_type=client_credentials&scope=read',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${basic}`,
      'x-forwarded-for': address,
    },
  });
  return {
    status: res.status,
    ...(res.status === 200 ? {} : { error: res.body.error as string }),
    ...budget(res.headers),
  };
}

/** What the address has left of its anonymous budget, as the next request (counted) shows it. */
async function addressBudgetLeft(address: string): Promise<number> {
  const res = await gw(stack, 'GET', '/api/v1', { headers: { 'x-forwarded-for': address } });
  return budget(res.headers).remaining;
}
