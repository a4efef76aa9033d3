import { waitFor } from '@community/test-harness';
import { clientAuth, codeFlow, registerApp, REDIRECT_URI, oauthStackFor } from '../support/oauth';
import { gw } from '../support/stack';

const ctx = oauthStackFor('oauthflows');

const { me, member } = ctx;

describe('discovery (RFC 8414)', () => {
  it('publishes metadata that oauth4webapi accepts, with the gateway as issuer', () => {
    expect(ctx.as).toMatchObject({
      issuer: ctx.stack.gateway,
      authorization_endpoint: `${ctx.stack.gateway}/api/v1/oauth/authorize`,
      token_endpoint: `${ctx.stack.gateway}/api/v1/oauth/token`,
      revocation_endpoint: `${ctx.stack.gateway}/api/v1/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    });
  });

  it('keeps a document derived from the Host header out of shared caches', async () => {
    const res = await gw(ctx.stack, 'GET', '/.well-known/oauth-authorization-server', {
      headers: { 'x-forwarded-host': 'attacker.example' },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.issuer).toBe(ctx.stack.gateway);
  });
});

describe('authorization code with PKCE', () => {
  it('gives a public client tokens that act for the user through the gateway like a key', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    expect(app.client_secret).toBeNull();
    const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read write' });
    expect(tokens.access_token).toMatch(/^cpo_[0-9A-Za-z]{40}$/);
    expect(tokens.refresh_token).toMatch(/^cpr_[0-9A-Za-z]{40}$/);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read write' });
    expect(tokens.expires_in).toBeGreaterThan(3590);

    const res = await me(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(user.id);
    // The same per-account budget as the user's keys: one window, shared.
    const viaKey = await me(user.key);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(viaKey.headers.get('x-ratelimit-remaining'))).toBe(
      Number(res.headers.get('x-ratelimit-remaining')) - 1,
    );
    // A refresh token is for the token endpoint only, never a bearer credential.
    const refreshAsBearer = await me(tokens.refresh_token!);
    expect(refreshAsBearer.status).toBe(401);
    expect(refreshAsBearer.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('issues a confidential client its tokens with client_secret_basic, and only the scopes granted', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    expect(app.client_secret).toMatch(/^cps_[0-9A-Za-z]{40}$/);
    const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read' });
    expect(tokens.scope).toBe('read');
    expect((await me(tokens.access_token)).status).toBe(200);
    const write = await gw(ctx.stack, 'PUT', '/api/v1/users/me', {
      key: tokens.access_token,
      body: { bio: 'written by an app' },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
  });
});

describe('refresh tokens', () => {
  it('rotate: the new refresh token works, the old one is refused afterwards', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const client = { client_id: app.client_id };
    const first = await codeFlow(ctx, app, user.visitor);
    const refresh = (token: string) =>
      ctx.oauth.refreshTokenGrantRequest(ctx.as, client, clientAuth(ctx, app), token, ctx.http);

    const second = await ctx.oauth.processRefreshTokenResponse(
      ctx.as,
      client,
      await refresh(first.refresh_token!),
    );
    expect(second.refresh_token).toMatch(/^cpr_/);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('read write');
    expect((await me(second.access_token)).status).toBe(200);

    const reused = ctx.oauth.processRefreshTokenResponse(ctx.as, client, await refresh(first.refresh_token!));
    await expect(reused).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
  });
});

describe('client credentials', () => {
  it('gives a confidential app a token that acts as its owner, without a refresh token', async () => {
    const owner = await member();
    const app = await registerApp(ctx.stack, owner.key);
    const client = { client_id: app.client_id };
    const response = await ctx.oauth.clientCredentialsGrantRequest(
      ctx.as,
      client,
      clientAuth(ctx, app, 'post'),
      { scope: 'read' },
      ctx.http,
    );
    const tokens = await ctx.oauth.processClientCredentialsResponse(ctx.as, client, response);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe('read');
    const res = await me(tokens.access_token);
    expect(res.body.data.id).toBe(owner.id);
  });
});

describe('revocation (RFC 7009)', () => {
  it('stops a revoked access token at the gateway within seconds, even after it was cached', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const tokens = await codeFlow(ctx, app, user.visitor);
    expect((await me(tokens.access_token)).status).toBe(200);
    const client = { client_id: app.client_id };
    await ctx.oauth.processRevocationResponse(
      await ctx.oauth.revocationRequest(ctx.as, client, clientAuth(ctx, app), tokens.access_token, ctx.http),
    );
    await waitFor(async () => (await me(tokens.access_token)).status === 401, {
      what: 'the revoked token refused',
      timeoutMs: 5_000,
    });
  });
});

it('registers only redirect URIs that are https, or http on loopback', async () => {
  const user = await member();
  const res = await gw(ctx.stack, 'POST', '/api/v1/oauth/apps', {
    key: user.key,
    body: { name: 'x', redirect_uris: [REDIRECT_URI, 'http://example.com/cb'] },
  });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'validation_error', details: { field: 'redirect_uris.1' } });
});
