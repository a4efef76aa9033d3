import { actor } from '@community/test-harness';
import { Browser, csrfOf, type Page } from '../support/account-browser';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §21: a suspended account is read-only everywhere — no profile edit on the account pages,
// and no new OAuth token by refresh, client credentials or consent.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('suspended_read_only');
});
afterAll(() => h?.stop());

const moderator = actor(9001, 'moderator', ['read', 'write', 'moderate']);
const suspend = async (userId: number) => {
  const res = await h.call(moderator, 'PUT', `/users/${userId}/suspension`, {
    body: { reason: 'cooling off', until: '2099-01-01T00:00:00Z' },
  });
  expect(res.status).toBe(200);
};
const lift = async (userId: number) =>
  expect((await h.call(moderator, 'DELETE', `/users/${userId}/suspension`)).status).toBe(200);

let accounts = 0;

/** A member registered on the page, signed in in `browser`. */
async function signedIn() {
  const browser = new Browser(h);
  const username = `ro_${process.pid}_${++accounts}`;
  const page = await browser.post('/account/register', {
    _csrf: await browser.csrf('/account/register'),
    username,
    email: `${username}@example.test`,
    password: 'a good long password',
  });
  expect(page.status).toBe(303);
  const [row] = await h.sql<{ id: number }[]>`select id from users where username = ${username}`;
  return { browser, userId: row!.id };
}

const REDIRECT = 'https://client.example/cb';

/** A confidential app of a fresh member, registered through the API. */
async function app() {
  const owner = await registerMember(h);
  const res = await h.call(owner.as, 'POST', '/oauth/apps', {
    body: { name: 'Reader', redirect_uris: [REDIRECT] },
  });
  expect(res.status).toBe(201);
  const { client_id, client_secret } = res.body.data as { client_id: string; client_secret: string };
  return { ownerId: owner.user.id as number, client_id, client_secret };
}

const token = (params: Record<string, string>) =>
  h.call(null, 'POST', '/oauth/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: new URLSearchParams(params).toString(),
  });

const clientOf = ({ client_id, client_secret }: { client_id: string; client_secret: string }) => ({
  client_id,
  client_secret,
});

const consentPath = (clientId: string) =>
  `/account/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'read',
  })}`;

/**
 * The member allows the app with the consent form `page` (opened now unless given): the answer, and
 * the code its redirect carries or null.
 */
async function allow(browser: Browser, clientId: string, page?: Page) {
  page ??= await browser.get(consentPath(clientId));
  const params = Object.fromEntries(new URL(consentPath(clientId), 'https://x').searchParams);
  const answer = await browser.post('/account/oauth/authorize', {
    ...params,
    _csrf: csrfOf(page),
    decision: 'allow',
  });
  const code = new URL(answer.headers.get('location') ?? '/', 'https://x').searchParams.get('code');
  return { answer, code };
}

async function tokensFor(browser: Browser, client: Awaited<ReturnType<typeof app>>) {
  const { code } = await allow(browser, client.client_id);
  const res = await token({
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    ...clientOf(client),
  });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string };
}

describe('a suspended member on the account pages', () => {
  it('refuses a profile edit from a suspended member on the settings page', async () => {
    const { browser, userId } = await signedIn();
    const opened = await browser.get('/account/settings');
    await suspend(userId);

    const sent = await browser.post('/account/settings', {
      _csrf: csrfOf(opened),
      display_name: 'Defaced',
      bio: 'new bio',
      avatar: 'https://evil.example/a.png',
    });

    expect(sent.status).toBe(403);
    expect(sent.text).toContain('Your account is suspended');
    expect(sent.text).not.toContain('id="profile-form"');
    const [row] = await h.sql`select display_name, bio, avatar from users where id = ${userId}`;
    expect(row).toMatchObject({ displayName: expect.not.stringContaining('Defaced'), bio: '', avatar: null });
    const page = await browser.get('/account/settings');
    expect([page.status, page.text.includes('Your account is suspended')]).toEqual([200, true]);
    expect(page.text).not.toContain('id="profile-form"');
    // The same rule holds behind the API, should a request get past the gateway's check.
    const byApi = await h.call(actor(userId, 'member', ['read', 'write']), 'PUT', '/users/me', {
      body: { display_name: 'Defaced' },
    });
    expect([byApi.status, byApi.body.error]).toEqual([403, 'account_suspended']);
  });
});

describe('a suspended account gets no OAuth token', () => {
  it('refuses a refresh for a suspended member with invalid_grant, and the token works again once lifted', async () => {
    const client = await app();
    const { browser, userId } = await signedIn();
    const { refresh_token } = await tokensFor(browser, client);
    await suspend(userId);

    const refused = await token({ grant_type: 'refresh_token', refresh_token, ...clientOf(client) });

    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/suspended/),
    });
    expect(await liveTokensOf(userId)).toBe(2);
    await lift(userId);
    const later = await token({ grant_type: 'refresh_token', refresh_token, ...clientOf(client) });
    expect(later.status).toBe(200);
  });

  it('refuses to exchange a code issued before the suspension with invalid_grant', async () => {
    const client = await app();
    const { browser, userId } = await signedIn();
    const { code } = await allow(browser, client.client_id);
    await suspend(userId);

    const refused = await token({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT,
      ...clientOf(client),
    });

    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
    expect(await liveTokensOf(userId)).toBe(0);
  });

  it('refuses client credentials of an app whose owner is suspended with unauthorized_client', async () => {
    const client = await app();
    expect((await token({ grant_type: 'client_credentials', ...clientOf(client) })).status).toBe(200);
    await suspend(client.ownerId);

    const refused = await token({ grant_type: 'client_credentials', ...clientOf(client) });

    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'unauthorized_client',
      error_description: expect.stringMatching(/suspended/),
    });
    expect(await liveTokensOf(client.ownerId)).toBe(1);
  });

  it('refuses consent from a suspended member with a clear page, issuing no code', async () => {
    const client = await app();
    const { browser, userId } = await signedIn();
    const opened = await browser.get(consentPath(client.client_id));
    await suspend(userId);

    const shown = await browser.get(consentPath(client.client_id));
    const { answer, code } = await allow(browser, client.client_id, opened);

    expect(shown.status).toBe(403);
    expect(shown.text).toContain('Your account is suspended');
    expect(shown.text).not.toContain('id="consent-form"');
    expect([answer.status, code]).toEqual([403, null]);
    expect(answer.text).toContain('Your account is suspended');
    const codes = await h.sql`
      select 1 from oauth_codes c join oauth_grants g on g.id = c.grant_id where g.user_id = ${userId}`;
    expect(codes).toHaveLength(0);
  });
});

async function liveTokensOf(userId: number): Promise<number> {
  const [row] = await h.sql<{ n: number }[]>`
    select count(*)::int as n from oauth_tokens t join oauth_grants g on g.id = t.grant_id
    where g.user_id = ${userId} and t.revoked_at is null`;
  return row!.n;
}
