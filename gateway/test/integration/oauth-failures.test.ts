import { createHash } from 'node:crypto';
import { waitFor } from '@community/test-harness';
import {
  answerConsent,
  authorizationRequest,
  clientAuth,
  codeFlow,
  oauthContext,
  registerApp,
  REDIRECT_URI,
  type Visitor,
  type OAuthContext,
  type RegisteredApp,
  oauthStackFor,
} from '../support/oauth';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

const ctx = oauthStackFor('oauthfail');

const { me, member } = ctx;

/** Consent given, code in hand, not yet exchanged. */
async function codeFor(app: RegisteredApp, visitor: Visitor, params: Record<string, string> = {}) {
  const attempt = await authorizationRequest(ctx, app.client_id, params);
  const answer = await answerConsent(visitor, attempt.url);
  const callback = ctx.oauth.validateAuthResponse(
    ctx.as,
    { client_id: app.client_id },
    new URL(answer.location!),
    attempt.state,
  );
  return { callback, verifier: attempt.verifier };
}

async function exchange(
  app: RegisteredApp,
  callback: URLSearchParams,
  verifier: string,
  redirectUri = REDIRECT_URI,
) {
  const client = { client_id: app.client_id };
  const response = await ctx.oauth.authorizationCodeGrantRequest(
    ctx.as,
    client,
    clientAuth(ctx, app),
    callback,
    redirectUri,
    verifier,
    ctx.http,
  );
  return ctx.oauth.processAuthorizationCodeResponse(ctx.as, client, response);
}

/** The error an authorization request was answered with, on the app's redirect URI. */
async function authorizationError(visitor: Visitor, url: URL) {
  const answer = await answerConsent(visitor, url);
  expect(answer.status).toBe(303);
  const back = new URL(answer.location!);
  expect(back.origin + back.pathname).toBe(REDIRECT_URI);
  return Object.fromEntries(back.searchParams);
}

describe('the authorization endpoint', () => {
  it('shows an error page, and sends nobody anywhere, for a redirect URI the app did not register', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const attempt = await authorizationRequest(ctx, app.client_id, {
      redirect_uri: 'https://attacker.example/callback',
    });
    const answer = await answerConsent(user.visitor, attempt.url);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('has not registered');
    expect(answer.text).not.toMatch(/cpa_[0-9A-Za-z]{40}/);
  });

  it('refuses a public client without PKCE, and the plain method, on the redirect URI', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const without = await authorizationRequest(ctx, app.client_id);
    without.url.searchParams.delete('code_challenge');
    without.url.searchParams.delete('code_challenge_method');
    expect(await authorizationError(user.visitor, without.url)).toMatchObject({
      error: 'invalid_request',
      state: without.state,
    });
    const plain = await authorizationRequest(ctx, app.client_id, { code_challenge_method: 'plain' });
    expect((await authorizationError(user.visitor, plain.url)).error).toBe('invalid_request');
  });

  it('answers access_denied with the state when the user denies', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const attempt = await authorizationRequest(ctx, app.client_id);
    const answer = await answerConsent(user.visitor, attempt.url, 'deny');
    const back = new URL(answer.location!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      error: 'access_denied',
      state: attempt.state,
    });
  });
});

describe('code exchange', () => {
  it('refuses a code used twice, and revokes the tokens the first use gave', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const { callback, verifier } = await codeFor(app, user.visitor);
    const tokens = await exchange(app, callback, verifier);
    expect((await me(tokens.access_token)).status).toBe(200);
    await expect(exchange(app, callback, verifier)).rejects.toMatchObject({ error: 'invalid_grant' });
    await waitFor(async () => (await me(tokens.access_token)).status === 401, {
      what: 'the first exchange’s token refused',
      timeoutMs: 5_000,
    });
  });

  it('refuses a wrong PKCE verifier, which uses the code up', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const { callback, verifier } = await codeFor(app, user.visitor);
    const wrong = ctx.oauth.generateRandomCodeVerifier();
    await expect(exchange(app, callback, wrong)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(exchange(app, callback, verifier)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a redirect URI other than the one the code was issued for', async () => {
    const user = await member();
    const other = 'http://127.0.0.1:9/other';
    const app = await registerApp(ctx.stack, user.key, { redirect_uris: [REDIRECT_URI, other] });
    const { callback, verifier } = await codeFor(app, user.visitor);
    // The library this server builds on answers invalid_request here (RFC 6749 suggests invalid_grant).
    await expect(exchange(app, callback, verifier, other)).rejects.toMatchObject({ status: 400 });
  });
});

describe('scope escalation', () => {
  it('refuses to authorize a scope beyond the user’s role', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const attempt = await authorizationRequest(ctx, app.client_id, { scope: 'read admin' });
    expect((await authorizationError(user.visitor, attempt.url)).error).toBe('invalid_scope');
    const unknown = await authorizationRequest(ctx, app.client_id, { scope: 'read everything' });
    expect((await authorizationError(user.visitor, unknown.url)).error).toBe('invalid_scope');
  });

  it('refuses a refresh that asks for more than was granted', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read' });
    const client = { client_id: app.client_id };
    const response = await ctx.oauth.refreshTokenGrantRequest(
      ctx.as,
      client,
      clientAuth(ctx, app),
      tokens.refresh_token!,
      { ...ctx.http, additionalParameters: { scope: 'read write' } },
    );
    await expect(ctx.oauth.processRefreshTokenResponse(ctx.as, client, response)).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('refuses client credentials beyond the owner’s role, and to public clients', async () => {
    const owner = await member();
    const confidential = await registerApp(ctx.stack, owner.key);
    const ask = async (app: RegisteredApp, scope: string) => {
      const client = { client_id: app.client_id };
      const response = await ctx.oauth.clientCredentialsGrantRequest(
        ctx.as,
        client,
        clientAuth(ctx, app),
        { scope },
        ctx.http,
      );
      return ctx.oauth.processClientCredentialsResponse(ctx.as, client, response);
    };
    await expect(ask(confidential, 'read moderate')).rejects.toMatchObject({ error: 'invalid_scope' });
    const publicApp = await registerApp(ctx.stack, owner.key, { client_type: 'public' });
    // A public client cannot authenticate, and client credentials are nothing but authentication.
    await expect(ask(publicApp, 'read')).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('cuts a token’s scopes to the role when the user loses it', async () => {
    const user = await member();
    const admin = { userId: 1, role: 'admin' as const, scopes: new Set(['admin' as const]) };
    const promote = (role: string) =>
      ctx.stack.users(admin, 'PUT', `/users/${user.id}/role`, { body: { role } });
    expect((await promote('moderator')).status).toBe(200);
    const app = await registerApp(ctx.stack, user.key);
    const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read moderate' });
    expect(tokens.scope).toBe('read moderate');
    expect((await promote('member')).status).toBe(200);

    const resolved = await ctx.stack.users(null, 'POST', '/internal/keys/resolve', {
      body: { key_hash: sha256(tokens.access_token) },
    });
    expect(resolved.body.data).toMatchObject({
      credential: 'access_token',
      role: 'member',
      scopes: ['read'],
    });
    const client = { client_id: app.client_id };
    const refreshed = await ctx.oauth.processRefreshTokenResponse(
      ctx.as,
      client,
      await ctx.oauth.refreshTokenGrantRequest(
        ctx.as,
        client,
        clientAuth(ctx, app),
        tokens.refresh_token!,
        ctx.http,
      ),
    );
    expect(refreshed.scope).toBe('read');
  });
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

// Long enough that issuing the token and the first call fit in it on a busy machine.
const TTL_SECONDS = 5;

describe('expired tokens', () => {
  let short: Stack;
  let shortCtx: OAuthContext;
  beforeAll(async () => {
    short = await startStack('oauthexp', {}, { OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) });
    shortCtx = await oauthContext(short);
  });
  afterAll(() => short.stop());

  it('answers 401 once an access token expires, though the gateway had it cached', async () => {
    const owner = await memberWithKey(short, ['read', 'keys']);
    const app = await registerApp(short, owner.key);
    const client = { client_id: app.client_id };
    // Expiry is stored in whole seconds: at the latest one second past the TTL from this moment.
    const latestExpiry = Date.now() + (TTL_SECONDS + 1) * 1000;
    const tokens = await shortCtx.oauth.processClientCredentialsResponse(
      shortCtx.as,
      client,
      await shortCtx.oauth.clientCredentialsGrantRequest(
        shortCtx.as,
        client,
        clientAuth(shortCtx, app),
        {},
        shortCtx.http,
      ),
    );
    expect(tokens.expires_in).toBeLessThanOrEqual(TTL_SECONDS);
    expect((await gw(short, 'GET', '/api/v1/users/me', { key: tokens.access_token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, latestExpiry - Date.now() + 100));
    const res = await gw(short, 'GET', '/api/v1/users/me', { key: tokens.access_token });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });
});
