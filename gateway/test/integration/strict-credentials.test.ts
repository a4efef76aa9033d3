/**
 * What users-service decides about credentials, seen through the gateway that vouches for them
 * (issue 14, findings 8, 9 and 10): a key minted by a key, a refresh asking for more, a consent
 * request whose redirect URI is not a URL.
 */
import { codeFlow, registerApp, signedInMember, oauthStackFor } from '../support/oauth';
import { gw, memberWithKey, mintKey } from '../support/stack';

const ctx = oauthStackFor('strictcreds');

const inSeconds = (s: number) => new Date(Date.now() + s * 1000);
const wire = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('a key minted by a key', () => {
  it('expires with its parent when it names no expiry', async () => {
    const { id } = await memberWithKey(ctx.stack);
    const parentExpiry = wire(inSeconds(600));
    const parent = await mintKey(ctx.stack, id, ['read', 'keys'], { expires_at: parentExpiry });
    const child = await gw(ctx.stack, 'POST', '/api/v1/keys', { key: parent.key, body: { name: 'child' } });
    expect(child.status).toBe(201);
    expect(child.body.data.expires_at).toBe(parentExpiry);
  });

  it('is refused with 400 when it would outlive its parent, or never expire', async () => {
    const { id } = await memberWithKey(ctx.stack);
    const parent = await mintKey(ctx.stack, id, ['read', 'keys'], { expires_at: wire(inSeconds(6)) });
    for (const expires_at of [wire(inSeconds(3600)), null]) {
      const res = await gw(ctx.stack, 'POST', '/api/v1/keys', {
        key: parent.key,
        body: { name: 'longer lived', scopes: ['read'], expires_at },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toMatchObject({ field: 'expires_at', code: 'too_big' });
    }
    const shorter = await gw(ctx.stack, 'POST', '/api/v1/keys', {
      key: parent.key,
      body: { name: 'shorter', scopes: ['read'], expires_at: wire(inSeconds(3)) },
    });
    expect(shorter.status).toBe(201);
  });

  it('is refused with 400 when no scope is named and the parent can grant none of read and write', async () => {
    const { id } = await memberWithKey(ctx.stack);
    const keysOnly = await mintKey(ctx.stack, id, ['keys']);
    const res = await gw(ctx.stack, 'POST', '/api/v1/keys', { key: keysOnly.key, body: { name: 'nothing' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'scopes', code: 'required' });
    const readOnly = await mintKey(ctx.stack, id, ['read', 'keys']);
    const defaulted = await gw(ctx.stack, 'POST', '/api/v1/keys', {
      key: readOnly.key,
      body: { name: 'reader' },
    });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.data.scopes).toEqual(['read']);
  });
});

describe('refreshing with a wider scope', () => {
  it('fails with invalid_scope before the refresh token is used, so the plain retry still works', async () => {
    const user = await signedInMember(ctx.stack);
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read' });
    const refresh = (scope?: string) =>
      gw(ctx.stack, 'POST', '/api/v1/oauth/token', {
        rawBody: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: app.client_id,
          ...(scope ? { scope } : {}),
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

    const wider = await refresh('read write');
    expect([wider.status, wider.body.error]).toEqual([400, 'invalid_scope']);
    const retry = await refresh();
    expect(retry.status).toBe(200);
    expect(retry.body.scope).toBe('read');
  });
});

describe('the consent page', () => {
  it('refuses a loopback redirect URI with port 99999 as not registered, never a 500', async () => {
    const user = await signedInMember(ctx.stack);
    const app = await registerApp(ctx.stack, user.key, { client_type: 'public' });
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'http://127.0.0.1:99999/callback',
      scope: 'read',
      // no PKCE: an error the page would send back to a redirect URI it trusted
    });
    const page = await user.visitor.get(`/account/oauth/authorize?${query}`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('asked to send you to an address it has not registered');
  });
});
