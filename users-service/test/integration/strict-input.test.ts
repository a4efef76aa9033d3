import { signIdentity } from '@community/http-kit';
import { actor } from '@community/test-harness';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('strict_input');
});
afterAll(() => h?.stop());

const wire = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
const inSeconds = (s: number) => new Date(Date.now() + s * 1000);

describe('a key minted by a key (the gateway signs the parent key’s expiry)', () => {
  it('refuses to mint a scope-less key when the parent holds neither read nor write', async () => {
    const { user } = await registerMember(h);
    const keysOnly = actor(user.id, 'member', ['keys']);
    const res = await h.call(keysOnly, 'POST', '/keys', { body: { name: 'nothing to do' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'validation_error',
      details: { field: 'scopes', code: 'required' },
    });
    expect(await h.sql`select 1 from api_keys where user_id = ${user.id}`).toHaveLength(0);
  });

  it('gives a child of a key expiring in 6 s that expiry, and refuses a later one or none', async () => {
    const { user } = await registerMember(h);
    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 6_000);
    const parent = { ...actor(user.id, 'member', ['read', 'keys']), expiresAt };
    const child = await h.call(parent, 'POST', '/keys', { body: { name: 'child' } });
    expect(child.status).toBe(201);
    expect(child.body.data.expires_at).toBe(wire(expiresAt));
    for (const later of [wire(inSeconds(3600)), null]) {
      const res = await h.call(parent, 'POST', '/keys', { body: { name: 'outlives', expires_at: later } });
      expect(res.status).toBe(400);
      expect(res.body.details).toMatchObject({ field: 'expires_at', code: 'too_big' });
    }
  });

  it('lets a key that never expires mint one that never expires', async () => {
    const { as } = await registerMember(h);
    const res = await h.call(as, 'POST', '/keys', { body: { name: 'forever', scopes: ['read'] } });
    expect([res.status, res.body.data.expires_at]).toEqual([201, null]);
  });
});

describe('OAuth app registration', () => {
  it('refuses a redirect URI with port 0 with 400 validation_error on that field', async () => {
    const { as, user } = await registerMember(h);
    for (const uri of ['https://example.org:0/cb', 'https://example.org:000/cb', 'http://127.0.0.1:0/cb']) {
      const res = await h.call(as, 'POST', '/oauth/apps', {
        body: { name: 'Port zero', redirect_uris: ['https://example.org/ok', uri] },
      });
      expect([uri, res.status, res.body.error, res.body.details?.field]).toEqual([
        uri,
        400,
        'validation_error',
        'redirect_uris.1',
      ]);
    }
    expect(await h.sql`select 1 from oauth_apps where user_id = ${user.id}`).toHaveLength(0);
  });
});

describe('the consent page', () => {
  it('answers a loopback redirect_uri with port 99999 or 0 as unregistered (400 page), never a 500', async () => {
    const { as } = await registerMember(h);
    const app = await h.call(as, 'POST', '/oauth/apps', {
      body: { name: 'Native', client_type: 'public', redirect_uris: ['http://127.0.0.1:9/callback'] },
    });
    expect(app.status).toBe(201);
    // Redirects are read, not followed: nothing listens on the app's loopback port.
    const ask = async (redirect_uri: string) => {
      const url = `/account/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: app.body.data.client_id,
        redirect_uri,
        scope: 'read',
      })}`;
      const res = await fetch(h.url + url, {
        redirect: 'manual',
        headers: signIdentity(h.config.INTERNAL_TOKEN, {
          method: 'GET',
          url,
          actor: null,
          clientIp: '10.1.2.3',
        }),
      });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    // No PKCE: an error the page sends back to a redirect URI it trusts, and only to one it trusts.
    for (const port of ['99999', '0']) {
      const bad = await ask(`http://127.0.0.1:${port}/callback`);
      expect([port, bad.status]).toEqual([port, 400]);
      expect(bad.text).toContain('asked to send you to an address it has not registered');
    }
    const otherPort = await ask('http://127.0.0.1:51234/callback');
    expect(otherPort.status).toBe(303);
    expect(otherPort.location).toMatch(/^http:\/\/127\.0\.0\.1:51234\/callback\?error=invalid_request/);
  });
});
