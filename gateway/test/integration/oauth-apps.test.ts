import { oauthAppSchema, oauthAppWithSecretSchema } from '@community/contracts';
import { waitFor } from '@community/test-harness';
import { clientAuth, codeFlow, registerApp, type RegisteredApp, oauthStackFor } from '../support/oauth';
import { gw, memberWithKey } from '../support/stack';

const ctx = oauthStackFor('oauthapps');

const { me, member } = ctx;
const refusedSoon = (token: string) =>
  waitFor(async () => (await me(token)).status === 401, { what: 'the token refused', timeoutMs: 5_000 });

/** How oauth4webapi reports a 401 with a WWW-Authenticate challenge: here, a refused client secret. */
async function expectClientRefused(attempt: Promise<unknown>) {
  const err = await attempt.then(
    () => null,
    (e: unknown) => e as { status: number; response: Response },
  );
  expect(err).toBeInstanceOf(ctx.oauth.WWWAuthenticateChallengeError);
  expect(err!.status).toBe(401);
  expect(await err!.response.json()).toMatchObject({ error: 'invalid_client' });
}

function clientCredentials(app: RegisteredApp, secret = app.client_secret!) {
  const client = { client_id: app.client_id };
  return ctx.oauth
    .clientCredentialsGrantRequest(ctx.as, client, ctx.oauth.ClientSecretBasic(secret), {}, ctx.http)
    .then((response) => ctx.oauth.processClientCredentialsResponse(ctx.as, client, response));
}

/** A raw form POST to the token endpoint, to look at the wire format itself. */
const tokenEndpoint = (body: string, headers: Record<string, string> = {}) =>
  gw(ctx.stack, 'POST', '/api/v1/oauth/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    rawBody: body,
  });

describe('the OAuth app API', () => {
  it('shows the secret once, lists apps without it, and hides other people’s apps', async () => {
    const user = await member();
    const created = await gw(ctx.stack, 'POST', '/api/v1/oauth/apps', {
      key: user.key,
      body: { name: 'Reader', redirect_uris: ['https://reader.example/cb'] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const app = oauthAppWithSecretSchema.parse(created.body.data);
    expect(created.headers.get('location')).toBe(`/api/v1/oauth/apps/${app.id}`);
    expect(app).toMatchObject({ client_type: 'confidential', redirect_uris: ['https://reader.example/cb'] });
    expect(app.client_id).toMatch(/^cpi_[0-9A-Za-z]{24}$/);

    const list = await gw(ctx.stack, 'GET', '/api/v1/oauth/apps', { key: user.key });
    expect(list.body.data.map((item: unknown) => oauthAppSchema.parse(item).id)).toEqual([app.id]);
    expect(list.text).not.toContain(app.client_secret!);
    const stranger = await member();
    expect((await gw(ctx.stack, 'GET', `/api/v1/oauth/apps/${app.id}`, { key: stranger.key })).status).toBe(
      404,
    );
    expect(
      (await gw(ctx.stack, 'DELETE', `/api/v1/oauth/apps/${app.id}`, { key: stranger.key })).status,
    ).toBe(404);
  });

  it('needs the keys scope, or the account session with its CSRF token', async () => {
    const user = await member();
    const readOnly = await gw(ctx.stack, 'GET', '/api/v1/oauth/apps', {
      key: (await memberWithKey(ctx.stack)).key,
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.details).toEqual({ required_scope: 'keys' });
    const page = await user.visitor.get('/account/settings/apps');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const viaSession = (token: string) =>
      gw(ctx.stack, 'POST', '/api/v1/oauth/apps', {
        headers: { cookie: user.visitor.cookieHeader(), 'x-csrf-token': token },
        body: { name: 'From the page', redirect_uris: ['https://page.example/cb'], client_type: 'public' },
      });
    expect((await viaSession('wrong')).status).toBe(403);
    const created = await viaSession(csrf);
    expect(created.status).toBe(201);
    expect(created.body.data.client_secret).toBeNull();
  });

  it('rotates a secret: the old one stops working at once, the new one works', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const rotated = await gw(ctx.stack, 'POST', `/api/v1/oauth/apps/${app.id}/rotate-secret`, {
      key: user.key,
    });
    expect(rotated.status).toBe(200);
    const secret = rotated.body.data.client_secret as string;
    expect(secret).not.toBe(app.client_secret);
    await expectClientRefused(clientCredentials(app));
    expect((await clientCredentials(app, secret)).access_token).toMatch(/^cpo_/);
    const publicApp = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const refused = await gw(ctx.stack, 'POST', `/api/v1/oauth/apps/${publicApp.id}/rotate-secret`, {
      key: user.key,
    });
    expect(refused.status).toBe(409);
  });

  it('deletes an app and, within seconds, every token it held', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const tokens = await codeFlow(ctx, app, user.visitor);
    expect((await me(tokens.access_token)).status).toBe(200);
    const deleted = await gw(ctx.stack, 'DELETE', `/api/v1/oauth/apps/${app.id}`, { key: user.key });
    expect(deleted.body).toEqual({ success: true, data: { id: app.id, deleted: true } });
    await refusedSoon(tokens.access_token);
    await expectClientRefused(clientCredentials(app));
  });
});

describe('the OAuth apps page', () => {
  it('lists the apps that can act for the user, and takes access back in one click', async () => {
    const developer = await member();
    const app = await registerApp(ctx.stack, developer.key, { name: 'Weekly digest' });
    const reader = await member();
    const tokens = await codeFlow(ctx, app, reader.visitor, { scope: 'read' });
    const page = await reader.visitor.get('/account/settings/apps');
    const grant =
      /<tr data-grant-id="(\d+)">\s*<td data-label="App">Weekly digest<\/td>\s*<td data-label="Scopes">read<\/td>/.exec(
        page.text,
      );
    expect(grant).not.toBeNull();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const withdrawn = await reader.visitor.post(`/account/settings/apps/authorizations/${grant![1]}/revoke`, {
      _csrf: csrf,
    });
    expect(withdrawn).toMatchObject({ status: 303, location: '/account/settings/apps?done=withdrawn' });
    await refusedSoon(tokens.access_token);
    expect((await reader.visitor.get('/account/settings/apps')).text).not.toContain('data-grant-id');
    // Someone else's authorization cannot be withdrawn by guessing its id.
    const other = await member();
    const otherPage = await other.visitor.get('/account/settings/apps');
    const theirs = await other.visitor.post(`/account/settings/apps/authorizations/${grant![1]}/revoke`, {
      _csrf: /name="_csrf" value="([^"]+)"/.exec(otherPage.text)![1]!,
    });
    expect(theirs.status).toBe(404);
  });
});

describe('the OAuth apps page, for the developer', () => {
  const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)![1]!;

  it('registers once per form, rotates a secret shown once, and deletes', async () => {
    const developer = await member();
    const page = await developer.visitor.get('/account/settings/apps');
    const form = {
      _csrf: csrfOf(page.text),
      _once: /name="_once" value="([^"]+)"/.exec(page.text)![1]!,
      name: 'Page app',
      redirect_uris: 'https://page.example/cb\r\nhttp://127.0.0.1:7000/cb',
      client_type: 'confidential',
    };
    const registered = await developer.visitor.post('/account/settings/apps', form);
    expect(registered.status).toBe(201);
    const secret = /cps_[0-9A-Za-z]{40}/.exec(registered.text)![0];
    expect((await developer.visitor.post('/account/settings/apps', form)).status).toBe(409);
    const [app] = (await gw(ctx.stack, 'GET', '/api/v1/oauth/apps', { key: developer.key })).body.data;
    expect(app.redirect_uris).toEqual(['https://page.example/cb', 'http://127.0.0.1:7000/cb']);

    const rotated = await developer.visitor.post(`/account/settings/apps/${app.id}/rotate-secret`, {
      _csrf: form._csrf,
    });
    expect(rotated.status).toBe(200);
    const newSecret = /cps_[0-9A-Za-z]{40}/.exec(rotated.text)![0];
    expect(newSecret).not.toBe(secret);
    expect((await developer.visitor.get('/account/settings/apps')).text).not.toContain(newSecret);

    const deleted = await developer.visitor.post(`/account/settings/apps/${app.id}/delete`, {
      _csrf: form._csrf,
    });
    expect(deleted.location).toBe('/account/settings/apps?done=deleted');
    const after = await developer.visitor.get(deleted.location!);
    expect(after.text).toContain('The app was deleted');
    expect(after.text).not.toContain('data-app-id');
  });

  it('shows what is wrong with a redirect URI next to the field', async () => {
    const developer = await member();
    const page = await developer.visitor.get('/account/settings/apps');
    const answer = await developer.visitor.post('/account/settings/apps', {
      _csrf: csrfOf(page.text),
      _once: /name="_once" value="([^"]+)"/.exec(page.text)![1]!,
      name: 'Insecure',
      redirect_uris: 'http://insecure.example/cb',
      client_type: 'public',
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/id="redirect_uris-error">Must use https/);
  });
});

describe('the token endpoint’s wire format (RFC 6749 §5.2)', () => {
  it('answers errors as {error, error_description}, uncached, never in the API envelope', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const credentials = `client_id=${app.client_id}&client_secret=${app.client_secret}`;
    const unsupported = await tokenEndpoint(`grant_type=urn%3Aexample%3Amade-up&${credentials}`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({
      error: 'unsupported_grant_type',
      error_description: expect.any(String),
    });
    expect(unsupported.headers.get('cache-control')).toBe('no-store');
    expect((await tokenEndpoint(`grant_type=password&${credentials}`)).body.error).toBe(
      'unauthorized_client',
    );

    const wrongSecret = await tokenEndpoint('grant_type=client_credentials', {
      authorization: `Basic ${Buffer.from(`${app.client_id}:cps_${'x'.repeat(40)}`).toString('base64')}`,
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error).toBe('invalid_client');
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic/);

    const json = await gw(ctx.stack, 'POST', '/api/v1/oauth/token', {
      body: { grant_type: 'client_credentials' },
    });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    const repeated = await tokenEndpoint('grant_type=client_credentials&grant_type=password');
    expect(repeated.body.error).toBe('invalid_request');
  });
});

describe('revocation', () => {
  it('answers 200 for an unknown token, and refuses another client’s token', async () => {
    const user = await member();
    const [mine, theirs] = [await registerApp(ctx.stack, user.key), await registerApp(ctx.stack, user.key)];
    const revoke = (app: RegisteredApp, token: string) =>
      ctx.oauth
        .revocationRequest(ctx.as, { client_id: app.client_id }, clientAuth(ctx, app), token, ctx.http)
        .then((response) => ctx.oauth.processRevocationResponse(response));
    await expect(revoke(mine, `cpo_${'A'.repeat(40)}`)).resolves.toBeUndefined();
    const tokens = await clientCredentials(theirs);
    await expect(revoke(mine, tokens.access_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await me(tokens.access_token)).status).toBe(200);
  });

  it('revokes a refresh token with its whole grant, the access tokens included', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const tokens = await codeFlow(ctx, app, user.visitor);
    expect((await me(tokens.access_token)).status).toBe(200);
    const client = { client_id: app.client_id };
    await ctx.oauth.processRevocationResponse(
      await ctx.oauth.revocationRequest(ctx.as, client, ctx.oauth.None(), tokens.refresh_token!, ctx.http),
    );
    await refusedSoon(tokens.access_token);
    const refresh = await ctx.oauth.refreshTokenGrantRequest(
      ctx.as,
      client,
      ctx.oauth.None(),
      tokens.refresh_token!,
      ctx.http,
    );
    await expect(ctx.oauth.processRefreshTokenResponse(ctx.as, client, refresh)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('ends the whole grant when a rotated refresh token is replayed', async () => {
    const user = await member();
    const app = await registerApp(ctx.stack, user.key);
    const client = { client_id: app.client_id };
    const refresh = async (token: string) =>
      ctx.oauth.processRefreshTokenResponse(
        ctx.as,
        client,
        await ctx.oauth.refreshTokenGrantRequest(ctx.as, client, clientAuth(ctx, app), token, ctx.http),
      );
    const first = await codeFlow(ctx, app, user.visitor);
    const second = await refresh(first.refresh_token!);
    await expect(refresh(first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The thief's replay took the rightful holder's tokens down with it: both must start over.
    await expect(refresh(second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await refusedSoon(second.access_token);
  });
});
