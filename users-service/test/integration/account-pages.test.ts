import { createHash } from 'node:crypto';
import { actor } from '@community/test-harness';
import { Browser, csrfOf, type Form, type Page } from '../support/account-browser';
import { startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;

beforeAll(async () => {
  h = await startUsersService('account_pages');
});

afterAll(async () => {
  await h?.stop();
});

/** The opening tag of the element with this id, whitespace collapsed. */
const tagOf = (page: Page, id: string) =>
  new RegExp(`<[a-z]+\\s[^>]*\\bid="${id}"[^>]*>`).exec(page.text)?.[0].replace(/\s+/g, ' ') ?? '';
const cookieLine = (page: Page, name: string) => page.setCookies.find((line) => line.startsWith(`${name}=`));
const KEY = /cpk_[0-9A-Za-z]{40}/g;
const PASSWORD = 'a good long password';

let accounts = 0;

/** A new account registered through the page; the browser holds its session afterwards. */
async function registered(browser = new Browser(h), extra: Form = {}) {
  const username = `page_${process.pid}_${++accounts}`;
  const page = await browser.post('/account/register', {
    _csrf: await browser.csrf('/account/register'),
    username,
    email: `${username}@example.test`,
    password: PASSWORD,
    ...extra,
  });
  expect(page.status).toBe(303);
  return { browser, username, page };
}

const onceOf = (page: { text: string }) => /name="_once" value="([^"]+)"/.exec(page.text)?.[1] ?? '';

async function generateKey(browser: Browser, form: Form = {}) {
  const page = await browser.get('/account/settings/api');
  return browser.post('/account/settings/api/keys', {
    _csrf: csrfOf(page),
    _once: onceOf(page),
    name: 'ci script',
    scopes: ['read', 'write'],
    ...form,
  });
}

const resolve = (key: string) =>
  h.call(null, 'POST', '/internal/keys/resolve', {
    body: { key_hash: createHash('sha256').update(key).digest('hex') },
  });

const userId = async (username: string) =>
  (await h.sql<{ id: number }[]>`select id from users where username = ${username}`)[0]!.id;

describe('registration', () => {
  it('signs the new user in with an HttpOnly, SameSite=Lax cookie and lands on the API page', async () => {
    const browser = new Browser(h);
    const form = await browser.get('/account/register');
    expect(form.status).toBe(200);
    expect(form.text).toContain('id="register-form"');
    expect(cookieLine(form, 'cp_csrf')).toMatch(/HttpOnly/);
    expect(cookieLine(form, 'cp_csrf')).toMatch(/SameSite=Lax/);

    const { page, username } = await registered(browser);

    expect(page.headers.get('location')).toBe('/account/settings/api');
    const session = cookieLine(page, 'cp_session')!;
    expect(session).toMatch(/; Max-Age=604800;/);
    expect(session).toMatch(/; Path=\//);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).not.toMatch(/Secure/);
    const api = await browser.get('/account/settings/api');
    expect(api.status).toBe(200);
    expect(api.text).toContain(`Signed in as <strong>${username}</strong>`);
    expect((await browser.get('/account')).headers.get('location')).toBe('/account/settings/api');
  });

  it('shows field errors next to the fields and keeps what was typed, except the password', async () => {
    const browser = new Browser(h);
    const page = await browser.post('/account/register', {
      _csrf: await browser.csrf('/account/register'),
      username: 'x',
      email: 'kept@example.test',
      password: 'short-pw',
    });

    expect(page.status).toBe(400);
    expect(page.text).toContain('role="alert"');
    expect(tagOf(page, 'username')).toContain('aria-describedby="username-hint username-error"');
    expect(tagOf(page, 'username')).toContain('aria-invalid="true"');
    expect(page.text).toContain(
      '<p class="field-error" id="username-error">Must be at least 3 characters</p>',
    );
    expect(page.text).toContain('id="password-error"');
    expect(page.text).toContain('value="kept@example.test"');
    expect(page.text).not.toContain('short-pw');
  });

  it('answers 409 next to the username when it is taken', async () => {
    const { username } = await registered();
    const browser = new Browser(h);
    const page = await browser.post('/account/register', {
      _csrf: await browser.csrf('/account/register'),
      username,
      email: `other_${username}@example.test`,
      password: PASSWORD,
    });

    expect(page.status).toBe(409);
    expect(page.text).toContain('id="username-error">This username is already registered</p>');
  });
});

describe('login', () => {
  const attempt = async (browser: Browser, username: string, password: string, next = '') =>
    browser.post('/account/login', { _csrf: await browser.csrf('/account/login'), username, password, next });

  it('refuses a wrong password with 401 and a generic message', async () => {
    const { username } = await registered();
    const page = await attempt(new Browser(h), username, 'not the password');

    expect(page.status).toBe(401);
    expect(page.text).toContain('Wrong username or password.');
    expect(page.text).toContain(`value="${username}"`);
    expect(cookieLine(page, 'cp_session')).toBeUndefined();
  });

  it('goes to a same-site next page, and never to another site', async () => {
    const { username } = await registered();
    const good = await attempt(new Browser(h), username, PASSWORD, '/account/settings');
    const evil = await attempt(new Browser(h), username, PASSWORD, '//evil.example/account/');

    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/account/settings');
    expect(evil.headers.get('location')).toBe('/account/settings/api');
  });

  it('locks the account out for this address after 10 failures, even with the right password', async () => {
    const { username } = await registered();
    const browser = new Browser(h);
    for (let i = 0; i < 10; i++)
      expect((await attempt(browser, username, 'wrong password!')).status).toBe(401);

    const locked = await attempt(browser, username, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.text).toContain('Too many failed logins');
    expect((await attempt(new Browser(h), username, PASSWORD)).status).toBe(303);
  });

  it('sends unauthenticated visitors to the login page and back', async () => {
    const browser = new Browser(h);
    const page = await browser.get('/account/settings/api');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/account/login?next=%2Faccount%2Fsettings%2Fapi');
    expect((await browser.get('/account')).headers.get('location')).toBe('/account/login');

    const login = await browser.get(page.headers.get('location')!);
    expect(login.text).toContain('name="next" value="/account/settings/api"');
  });

  it('sets the Secure flag when the gateway says the request came over https', async () => {
    const { username } = await registered();
    const browser = new Browser(h);
    const https = { 'x-forwarded-proto': 'https' };
    const _csrf = csrfOf(await browser.get('/account/login', https));
    const page = await browser.post('/account/login', { _csrf, username, password: PASSWORD }, https);

    expect(page.status).toBe(303);
    expect(cookieLine(page, 'cp_session')).toMatch(/; Secure/);
  });
});

describe('CSRF protection', () => {
  it('refuses a login form without its token with a 403 page', async () => {
    const { username } = await registered();
    const page = await new Browser(h).post('/account/login', { username, password: PASSWORD });

    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('This form has expired; reload and try again.');
    expect(cookieLine(page, 'cp_session')).toBeUndefined();
  });

  it('refuses a registration whose token does not match the cookie, creating nobody', async () => {
    const browser = new Browser(h);
    await browser.get('/account/register');
    const page = await browser.post('/account/register', {
      _csrf: 'A'.repeat(43),
      username: 'csrf_victim',
      email: 'csrf_victim@example.test',
      password: PASSWORD,
    });

    expect(page.status).toBe(403);
    expect(await h.sql`select 1 from users where username = 'csrf_victim'`).toHaveLength(0);
  });

  it('changes nothing when a signed-in form arrives without or with a wrong token', async () => {
    const { browser, username } = await registered();
    const profile = await browser.post('/account/settings', { display_name: 'Hijacked' });
    const key = await browser.post('/account/settings/api/keys', { _csrf: 'wrong', name: 'stolen' });
    const odd = await browser.post('/account/settings/api/keys', { _csrf: 'é'.repeat(32), name: 'stolen' });

    expect([profile.status, key.status, odd.status]).toEqual([403, 403, 403]);
    const id = await userId(username);
    const [user] = await h.sql<{ displayName: string }[]>`select display_name from users where id = ${id}`;
    expect(user!.displayName).toBe(username);
    expect(await h.sql`select 1 from api_keys where user_id = ${id}`).toHaveLength(0);
  });
});

describe('form tokens at rest', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest();
  /** Everything the session and form-token tables hold, as text: what a stolen backup would show. */
  const dump = async () =>
    JSON.stringify([
      await h.sql`select * from sessions`,
      await h.sql`select encode(token_hash, 'hex') as token_hash from used_form_tokens`,
    ]);

  it('stores a session only as hashes: the CSRF token its pages carry is not in the database', async () => {
    const { browser } = await registered();
    const page = await browser.get('/account/settings/api');
    const csrf = csrfOf(page);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await dump()).not.toContain(csrf);
    const rows = await h.sql<{ csrfHash: Buffer }[]>`select csrf_hash from sessions`;
    expect(rows.some((row) => Buffer.from(row.csrfHash).equals(sha256(csrf)))).toBe(true);
  });

  it('compares a submitted CSRF token by hash: the stored hash itself is no token', async () => {
    const { browser, username } = await registered();
    const page = await browser.get('/account/settings/api');
    const [row] = await h.sql<{ csrfHash: Buffer }[]>`
      select s.csrf_hash from sessions s join users u on u.id = s.user_id where u.username = ${username}`;
    const stolen = Buffer.from(row!.csrfHash).toString('base64url').slice(0, 43);
    const forged = await browser.post('/account/settings/api/keys', {
      _csrf: stolen,
      _once: onceOf(page),
      name: 'forged',
      scopes: ['read'],
    });
    expect(forged.status).toBe(403);
    expect((await generateKey(browser)).status).toBe(201);
  });

  it('keeps a used one-time form token only as its SHA-256, and still refuses it a second time', async () => {
    const { browser } = await registered();
    const page = await browser.get('/account/settings/api');
    const once = onceOf(page);
    const form = { _csrf: csrfOf(page), _once: once, name: 'once', scopes: ['read'] };
    expect((await browser.post('/account/settings/api/keys', form)).status).toBe(201);
    expect((await browser.post('/account/settings/api/keys', form)).status).toBe(409);
    const stored = await dump();
    expect(stored).not.toContain(once);
    expect(stored).toContain(sha256(once).toString('hex'));
  });
});

describe('the API keys page', () => {
  it('offers only the scopes of the role, with read and write checked', async () => {
    const { browser } = await registered();
    const page = await browser.get('/account/settings/api');

    expect(page.text).toContain('id="generate-key-form"');
    expect(tagOf(page, 'scope-read')).toMatch(/ checked\b/);
    expect(tagOf(page, 'scope-write')).toMatch(/ checked\b/);
    expect(tagOf(page, 'scope-webhooks')).not.toMatch(/ checked\b/);
    expect(tagOf(page, 'scope-keys')).not.toMatch(/ checked\b/);
    expect(page.text).not.toContain('value="admin"');
    expect(page.text).not.toContain('value="moderate"');
  });

  it('shows a new key exactly once, and the key works until it is revoked on the page', async () => {
    const { browser, username } = await registered();
    const created = await generateKey(browser, { expires_at: '2999-01-31' });

    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('location')).toBeNull();
    const keys = created.text.match(KEY) ?? [];
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(created.text).toContain(`<code id="new-key">${key}</code>`);
    expect(created.text).toContain('id="copy-key"');
    expect(created.text).toContain('Copy it now — you won’t see it again.');

    const reload = await browser.get('/account/settings/api');
    expect(reload.text).not.toMatch(KEY);
    expect(reload.text).toContain(`<code>${key.slice(0, 12)}…</code>`);
    expect(reload.text).toContain('2999-01-31 00:00 UTC');

    const resolved = await resolve(key);
    expect(resolved.status).toBe(200);
    expect(resolved.body.data.user_id).toBe(await userId(username));

    const keyId = resolved.body.data.key_id;
    expect(reload.text).toContain(`data-key-id="${keyId}"`);
    const revoked = await browser.post(`/account/settings/api/keys/${keyId}/revoke`, {
      _csrf: csrfOf(reload),
    });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/account/settings/api?revoked=1');
    expect((await resolve(key)).status).toBe(404);
    expect((await browser.get('/account/settings/api?revoked=1')).text).not.toContain(
      `data-key-id="${keyId}"`,
    );
  });

  it('mints nothing when the same form arrives twice (a reload or a double click)', async () => {
    const { browser, username } = await registered();
    const page = await browser.get('/account/settings/api');
    const form = { _csrf: csrfOf(page), _once: onceOf(page), name: 'once', scopes: ['read'] };
    const first = await browser.post('/account/settings/api/keys', form);
    expect(first.status).toBe(201);
    const again = await browser.post('/account/settings/api/keys', form);
    expect(again.status).toBe(409);
    expect(again.text).not.toMatch(KEY);
    expect(again.text).toContain('This form was already sent');
    const rows =
      await h.sql`select count(*)::int as n from api_keys where user_id = ${await userId(username)}`;
    expect(rows[0]!.n).toBe(1);
    const forged = await browser.post('/account/settings/api/keys', { ...form, _once: '' });
    expect(forged.status).toBe(409);
  });

  it('refuses a scope beyond the role and keeps the form filled in', async () => {
    const { browser } = await registered();
    const page = await generateKey(browser, { name: 'too strong', scopes: ['read', 'admin'] });

    expect(page.status).toBe(403);
    expect(page.text).toContain('id="scopes-error">Your account cannot grant the admin scope');
    expect(page.text).toContain('value="too strong"');
    expect(page.text).not.toMatch(KEY);
  });

  it('explains a missing name and scope next to the fields', async () => {
    const { browser } = await registered();
    const page = await generateKey(browser, { name: ' ', scopes: [] });

    expect(page.status).toBe(400);
    expect(page.text).toContain('id="name-error">Is required');
    expect(page.text).toContain('id="scopes-error"');
  });
});

describe('the key API with the account session', () => {
  it('accepts the session cookie with x-csrf-token, and refuses it without', async () => {
    const { browser } = await registered();
    const token = await browser.csrf('/account/settings/api');
    const post = (headers: Record<string, string>) =>
      browser.send('POST', '/api/v1/keys', {
        body: JSON.stringify({ name: 'from the page' }),
        headers: { 'content-type': 'application/json', ...headers },
      });

    const created = await post({ 'x-csrf-token': token });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.text).data.key).toMatch(/^cpk_[0-9A-Za-z]{40}$/);
    expect((await post({})).status).toBe(403);
  });

  it('keeps an Idempotency-Key per account: the session and a key of that account share it', async () => {
    const { browser, username } = await registered();
    const [user] = await h.sql<{ id: number }[]>`select id from users where username = ${username}`;
    const token = await browser.csrf('/account/settings/api');
    const body = JSON.stringify({ name: 'retried from the page' });
    const headers = {
      'content-type': 'application/json',
      'x-csrf-token': token,
      'idempotency-key': 'page-1',
    };
    const first = await browser.send('POST', '/api/v1/keys', { body, headers });
    const again = await browser.send('POST', '/api/v1/keys', { body, headers });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([
      201,
      201,
      'true',
    ]);
    // The replay carries the same new key, once more, and is never cached.
    expect(again.text).toBe(first.text);
    expect(again.headers.get('cache-control')).toBe('no-store');
    const bearer = await h.call(actor(user!.id, 'member', ['read', 'keys']), 'POST', '/keys', {
      body: { name: 'retried from the page' },
      headers: { 'idempotency-key': 'page-1' },
    });
    expect([bearer.status, bearer.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const rows =
      await h.sql`select 1 from api_keys where user_id = ${user!.id} and name = 'retried from the page'`;
    expect(rows).toHaveLength(1);
  });

  it('never takes the session from another origin, even with the CSRF token', async () => {
    const { browser } = await registered();
    const token = await browser.csrf('/account/settings/api');
    const post = (headers: Record<string, string>) =>
      browser.send('POST', '/api/v1/keys', {
        body: JSON.stringify({ name: 'from elsewhere' }),
        headers: { 'content-type': 'application/json', 'x-csrf-token': token, ...headers },
      });

    expect((await post({ origin: 'http://evil.example' })).status).toBe(401);
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    expect((await post({ origin: 'null' })).status).toBe(401);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
  });
});

describe('logout and profile', () => {
  it('ends the session on the server and clears the cookie', async () => {
    const { browser } = await registered();
    const session = browser.cookies.get('cp_session')!;
    const page = await browser.post('/account/logout', { _csrf: await browser.csrf('/account/settings') });

    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/account/login');
    expect(cookieLine(page, 'cp_session')).toMatch(/Expires=Thu, 01 Jan 1970/);
    browser.cookies.set('cp_session', session);
    const settings = await browser.get('/account/settings');
    expect(settings.status).toBe(303);
    expect(settings.headers.get('location')).toBe('/account/login?next=%2Faccount%2Fsettings');
  });

  /** Sends the settings page's profile form as a member who just registered. */
  async function saveProfile(fields: Record<string, string>) {
    const { browser } = await registered();
    const answer = await browser.post('/account/settings', {
      _csrf: await browser.csrf('/account/settings'),
      ...fields,
    });
    return { browser, answer };
  }

  it('saves the profile form and escapes what it shows', async () => {
    const { browser, answer: saved } = await saveProfile({
      display_name: '<script>alert(1)</script>',
      bio: 'Hello "there" & <b>you</b>',
      avatar: '',
    });

    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/account/settings?saved=1');
    const page = await browser.get('/account/settings?saved=1');
    expect(page.text).toContain('Your profile was saved.');
    expect(page.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(page.text).toContain('Hello &quot;there&quot; &amp; &lt;b&gt;you&lt;/b&gt;</textarea>');
    expect(page.text).not.toContain('<script>alert(1)');
  });

  it('keeps an invalid profile form filled in with the error tied to its field', async () => {
    const { answer: page } = await saveProfile({
      display_name: 'Still here',
      bio: '',
      avatar: 'javascript:alert(1)',
    });

    expect(page.status).toBe(400);
    expect(tagOf(page, 'avatar')).toContain('aria-describedby="avatar-hint avatar-error"');
    expect(page.text).toContain('value="Still here"');
  });
});

describe('every page', () => {
  it('carries the security headers, with a fresh nonce on its one script', async () => {
    const { browser } = await registered();
    const pages = [
      await new Browser(h).get('/account/register'),
      await new Browser(h).get('/account/login'),
      await new Browser(h).get('/account/settings'),
      await new Browser(h).post('/account/login', {}),
      await new Browser(h).get('/account/no-such-page'),
      await browser.get('/account/settings'),
      await browser.get('/account/settings/api'),
      await generateKey(browser),
    ];

    for (const page of pages) {
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(
        /^default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self' 'nonce-[A-Za-z0-9+/=]+'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
      );
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('cache-control')).toBe('no-store');
      if (page.status === 303) continue;
      const nonce = /'nonce-([^']+)'/.exec(csp)![1];
      expect(page.text).toContain(`<script nonce="${nonce}">`);
      expect(page.text).toMatch(/^<!doctype html>\s*<html lang="en">/);
    }
  });

  it('answers unknown pages, wrong methods and unsigned calls as HTML without internals', async () => {
    const missing = await new Browser(h).get('/account/nope');
    const method = await new Browser(h).send('DELETE', '/account/login');
    const unsigned = await fetch(`${h.url}/account/login`);

    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<h1>Page not found</h1>');
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('GET, POST, HEAD');
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await unsigned.text()).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('a suspended account (DESIGN.md §12)', () => {
  it('sees its suspension on the keys page, escaped, and can generate no key there or by the API', async () => {
    const { browser, username } = await registered();
    const [user] = await h.sql<{ id: number }[]>`select id from users where username = ${username}`;
    const moderator = actor(9001, 'moderator', ['read', 'write', 'moderate']);
    const before = await browser.get('/account/settings/api');
    const suspended = await h.call(moderator, 'PUT', `/users/${user!.id}/suspension`, {
      body: { reason: '<script>alert(1)</script> spam', until: '2099-01-01T00:00:00Z' },
    });
    expect(suspended.status).toBe(200);

    const page = await browser.get('/account/settings/api');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your account is suspended');
    expect(page.text).toContain('2099-01-01 00:00 UTC');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; spam');
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toContain('id="generate-key-form"');

    // A form sent anyway (opened before the suspension) is refused and explains why.
    const sent = await browser.post('/account/settings/api/keys', {
      _csrf: csrfOf(before),
      _once: onceOf(before),
      name: 'sneaky',
      scopes: ['read'],
    });
    expect(sent.status).toBe(403);
    expect(sent.text).toContain('Your account is suspended');
    const [{ keys } = { keys: -1 }] = await h.sql<{ keys: number }[]>`
      select count(*)::int as keys from api_keys where user_id = ${user!.id}`;
    expect(keys).toBe(0);
    const byApi = await h.call(actor(user!.id, 'member', ['read', 'write', 'keys']), 'POST', '/keys', {
      body: { name: 'by api' },
    });
    expect([byApi.status, byApi.body.error, byApi.body.details]).toEqual([
      403,
      'account_suspended',
      { until: '2099-01-01T00:00:00Z', reason: '<script>alert(1)</script> spam' },
    ]);

    expect((await h.call(moderator, 'DELETE', `/users/${user!.id}/suspension`)).status).toBe(200);
    expect((await generateKey(browser)).status).toBe(201);
  });
});
