import { hiddenInput, type Browser, type Page } from './browser';
import { DEFAULT_TIMEOUT_MS } from './http';

export const API_PAGE = '/account/settings/api';

export interface Credentials {
  username: string;
  password: string;
}

function expectRedirect(page: Page, to: string, what: string): void {
  if (page.status !== 303 || page.location !== to) {
    throw new Error(
      `${what}: expected 303 to ${to}, got ${page.status} ${page.location ?? ''}\n${page.html}`,
    );
  }
}

/** Fills in /account/register; the new account is signed in and lands on the API keys page. */
export async function registerOnPage(
  browser: Browser,
  account: Credentials & { email: string; displayName?: string },
): Promise<void> {
  const form = await browser.get('/account/register');
  const posted = await browser.postForm('/account/register', [
    ['_csrf', hiddenInput(form.html, '_csrf')],
    ['username', account.username],
    ['email', account.email],
    ['password', account.password],
    ['display_name', account.displayName ?? ''],
  ]);
  expectRedirect(posted, API_PAGE, 'registration');
}

export async function logInOnPage(browser: Browser, { username, password }: Credentials): Promise<void> {
  const form = await browser.get('/account/login');
  const posted = await browser.postForm('/account/login', [
    ['_csrf', hiddenInput(form.html, '_csrf')],
    ['next', hiddenInput(form.html, 'next')],
    ['username', username],
    ['password', password],
  ]);
  expectRedirect(posted, API_PAGE, 'login');
}

export async function logOutOnPage(browser: Browser): Promise<void> {
  const page = await browser.get(API_PAGE);
  const posted = await browser.postForm('/account/logout', [['_csrf', hiddenInput(page.html, '_csrf')]]);
  expectRedirect(posted, '/account/login', 'logout');
}

/** Presses "Generate new key" on the API keys page and reads the key it shows once. */
export async function generateKeyOnPage(
  browser: Browser,
  name: string,
  scopes: string[],
): Promise<{ key: string; html: string }> {
  const page = await browser.get(API_PAGE);
  if (page.status !== 200) throw new Error(`the API keys page answered ${page.status}`);
  const generated = await browser.postForm(`${API_PAGE}/keys`, [
    ['_csrf', hiddenInput(page.html, '_csrf')],
    ['_once', hiddenInput(page.html, '_once')],
    ['name', name],
    ...scopes.map((scope): [string, string] => ['scopes', scope]),
    ['expires_at', ''],
  ]);
  const key = /<code id="new-key">(cpk_[A-Za-z0-9]{40})<\/code>/.exec(generated.html)?.[1];
  if (generated.status !== 201 || !key) {
    throw new Error(`generating a key answered ${generated.status}:\n${generated.html.slice(0, 1500)}`);
  }
  return { key, html: generated.html };
}

/**
 * The key API with the account session instead of a key (cookie plus its CSRF token in
 * x-csrf-token), the way the account pages mint a first key.
 */
export async function createKeyWithSession(
  browser: Browser,
  baseUrl: string,
  body: { name: string; scopes: string[] },
): Promise<{ id: number; key: string }> {
  const page = await browser.get(API_PAGE);
  const res = await fetch(`${baseUrl}/api/v1/keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: browser.cookieHeader(),
      'x-csrf-token': hiddenInput(page.html, '_csrf'),
      'x-forwarded-for': browser.ip,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/v1/keys with a session answered ${res.status}: ${text}`);
  const { data } = JSON.parse(text) as { data: { id: number; key: string } };
  return data;
}
