import { codeFlow, oauthContext, registerApp, signedInMember } from '../support/oauth';
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
    const ctx = await oauthContext(stack);
    const member = await signedInMember(stack);
    const app = await registerApp(stack, member.key);
    await codeFlow(ctx, app, member.visitor);

    const token = async (clientId: string, secret: string, address: string) => {
      const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString(
        'base64',
      );
      const res = await gw(stack, 'POST', '/api/v1/oauth/token', {
        rawBody: 'grant_type=refresh_token&refresh_token=cpr_not_a_real_one',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${basic}`,
          'x-forwarded-for': address,
        },
      });
      return { status: res.status, error: res.body.error as string, ...budget(res.headers) };
    };

    // A known client has its own budget, whichever address it calls from.
    const first = await token(app.client_id, app.client_secret!, '198.51.100.1');
    expect(first).toEqual({ status: 400, error: 'invalid_grant', limit: 40, remaining: 39 });
    expect((await token(app.client_id, app.client_secret!, '198.51.100.2')).remaining).toBe(38);

    // Invented client ids buy nothing: they share their address's anonymous budget.
    const anonymous = await gw(stack, 'GET', '/api/v1', { headers: { 'x-forwarded-for': '198.51.100.3' } });
    const left = budget(anonymous.headers).remaining;
    const madeUp = await token('invented-1', 'secret', '198.51.100.3');
    expect(madeUp).toEqual({ status: 401, error: 'invalid_client', limit: 40, remaining: left - 1 });
    expect((await token('invented-2', 'secret', '198.51.100.3')).remaining).toBe(left - 2);
  }, 30_000);
});
