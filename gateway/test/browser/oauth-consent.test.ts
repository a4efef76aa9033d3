import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, waitFor } from '@community/test-harness';
import { oauthContext, PASSWORD, type OAuthContext } from '../support/oauth';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';
import { artifactPath } from './artifacts';

let stack: Stack;
let browser: Browser;
let ctx: OAuthContext;
let callback: { url: string; server: http.Server; hits: URL[] };

/** The app's own web server on loopback: it only records where the browser was sent back to. */
async function callbackServer() {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back in the app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server, hits };
}

beforeAll(async () => {
  // Each kept as it comes, so afterAll stops what started even when another failed.
  await Promise.all([
    startStack('oauthbrowser', { ANON_HOURLY_LIMIT: '100000', ANON_DAILY_LIMIT: '100000' }).then(
      (started) => (stack = started),
    ),
    launchChromium().then((launched) => (browser = launched)),
    callbackServer().then((server) => (callback = server)),
  ]);
  ctx = await oauthContext(stack);
});

afterAll(async () => {
  try {
    await browser?.close();
    if (callback) await new Promise((resolve) => callback.server.close(resolve));
  } finally {
    await stack?.stop();
  }
});

async function logIn(page: Page, username: string) {
  await page.fill('#username', username);
  await page.fill('#password', PASSWORD);
  await page.click('#login-form button[type=submit]');
}

/** The developer registers a confidential app on the OAuth apps page and copies its credentials. */
async function registerAppOnPage(username: string) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.gateway}/account/login`);
  await logIn(page, username);
  await page.waitForURL((u) => u.pathname === '/account/settings/api');
  await page.getByRole('link', { name: 'OAuth apps' }).click();
  await page.fill('#name', 'Loopback Reader');
  await page.fill('#redirect_uris', callback.url);
  await page.check('#type-confidential');
  const [answer] = await Promise.all([
    page.waitForResponse((res) => res.request().method() === 'POST'),
    page.click('#register-app-form button[type=submit]'),
  ]);
  expect(answer.status()).toBe(201);
  const clientId = (await page.textContent('#client-id'))!.trim();
  const clientSecret = (await page.textContent('#new-key'))!.trim();
  await page.screenshot({ path: artifactPath('oauth-apps.png'), fullPage: true });
  return { clientId, clientSecret };
}

it('runs the code flow with PKCE through a real consent page, then refresh rotation and revocation', async () => {
  const developer = await memberWithKey(stack, ['read', 'keys']);
  const { clientId, clientSecret } = await registerAppOnPage(developer.username);
  expect(clientId).toMatch(/^cpi_/);
  expect(clientSecret).toMatch(/^cps_[0-9A-Za-z]{40}$/);
  const { oauth, as } = ctx;
  const client = { client_id: clientId };
  const auth = oauth.ClientSecretBasic(clientSecret);

  // Someone else follows the app's link, signs in when asked, and sees what the app wants.
  const reader = await memberWithKey(stack, ['read']);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback.url,
    scope: 'read write',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const page = await (await browser.newContext()).newPage();
  await page.goto(authorize.href);
  await page.waitForURL((u) => u.pathname === '/account/login');
  await logIn(page, reader.username);
  await page.waitForURL((u) => u.pathname === '/account/oauth/authorize');
  expect(await page.textContent('#app-name')).toBe('Loopback Reader');
  expect(
    await page
      .locator('#requested-scopes li')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-scope'))),
  ).toEqual(['read', 'write']);
  await page.screenshot({ path: artifactPath('oauth-consent.png'), fullPage: true });

  // Allow: the browser lands on the app's loopback server with the code.
  await page.click('#allow');
  await page.waitForURL((u) => u.href.startsWith(callback.url));
  const landed = new URL(page.url());
  // The app's server saw the same (the browser may also ask it for a favicon).
  const arrival = callback.hits.find((hit) => hit.pathname === '/callback');
  expect(arrival?.searchParams.get('state')).toBe(state);
  expect(arrival?.searchParams.get('code')).toMatch(/^cpa_[0-9A-Za-z]{40}$/);

  // The app exchanges the code with its verifier and calls the API as the reader.
  const params = oauth.validateAuthResponse(as, client, landed, state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, callback.url, verifier, ctx.http),
  );
  const me = (token: string) => gw(stack, 'GET', '/api/v1/users/me', { key: token });
  const first = await me(tokens.access_token);
  expect(first.status).toBe(200);
  expect(first.body.data.username).toBe(reader.username);

  // Refresh rotation: a new pair; the new access token works.
  const refresh = async (token: string) =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, token, ctx.http),
    );
  const rotated = await refresh(tokens.refresh_token!);
  expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
  expect((await me(rotated.access_token)).status).toBe(200);

  // Revocation (RFC 7009): the gateway refuses the token within 5 s, although it had it cached.
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, auth, rotated.access_token, ctx.http),
  );
  await waitFor(async () => (await me(rotated.access_token)).status === 401, {
    timeoutMs: 5_000,
    what: 'the gateway to refuse the revoked access token',
  });
  expect((await me(tokens.access_token)).status).toBe(200);

  // The first refresh token was used up by the rotation.
  await expect(refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
}, 60_000);
