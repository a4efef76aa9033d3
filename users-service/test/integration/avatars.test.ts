import { meSchema, singleEnvelope, userSchema } from '@community/contracts';
import { actor } from '@community/test-harness';
import { DEFAULT_AVATAR_SVG } from '../../src/domain/users/default-avatar';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;
let configured: UsersHarness;
beforeAll(async () => {
  [h, configured] = await Promise.all([
    startUsersService('avatars'),
    startUsersService('avatarsbase', { PUBLIC_BASE_URL: 'https://community.example/' }),
  ]);
});
afterAll(() => Promise.all([h?.stop(), configured?.stop()]));

describe('GET /avatars/{id}.svg', () => {
  it('answers the default picture for any user id: an SVG cached a day, under a CSP that allows nothing', async () => {
    for (const id of ['1', '42', '2147483647']) {
      const res = await h.call(null, 'GET', `/avatars/${id}.svg`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.text).toBe(DEFAULT_AVATAR_SVG);
    }
  });

  it('is the picture the data: URI used to be, and carries nothing that could run', () => {
    expect(DEFAULT_AVATAR_SVG).toContain('fill="#cbd5e1"');
    expect(DEFAULT_AVATAR_SVG).toContain('<circle cx="32" cy="25" r="12" fill="#f8fafc"/>');
    expect(DEFAULT_AVATAR_SVG).not.toMatch(/<script|on\w+=|href|<foreignObject|<style/i);
  });

  it.each(['0', '-1', '01', 'abc', '1.5', '2147483648', '99999999999'])(
    'answers 404 in the envelope for %p, which is not a user id',
    async (id) => {
      const res = await h.call(null, 'GET', `/avatars/${id}.svg`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: 'not_found', message: 'avatar not found' });
    },
  );

  it('knows no other file names or methods', async () => {
    expect((await h.call(null, 'GET', '/avatars/1.png')).status).toBe(404);
    expect((await h.call(null, 'GET', '/avatars/')).status).toBe(404);
    const post = await h.call(null, 'POST', '/avatars/1.svg');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is only for the gateway: an unsigned request is 401', async () => {
    expect((await h.call(null, 'GET', '/avatars/1.svg', { unsigned: true })).status).toBe(401);
  });
});

describe('the avatar in answers', () => {
  it('is <scheme>://<host>/avatars/<id>.svg of the request when the user has set none', async () => {
    const { user, as } = await registerMember(h);
    const origin = new URL(h.url).origin;
    const me = singleEnvelope(meSchema).parse((await h.call(as, 'GET', '/users/me')).body).data;
    expect(me.avatar).toBe(`${origin}/avatars/${user.id}.svg`);
    // The gateway says the client came over https (X-Forwarded-Proto): so does the URL.
    const viaHttps = await h.call(as, 'GET', `/users/${user.id}`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(singleEnvelope(userSchema).parse(viaHttps.body).data.avatar).toBe(
      `https://${new URL(h.url).host}/avatars/${user.id}.svg`,
    );
    const listed = await h.call(as, 'GET', '/users?limit=100');
    expect(listed.text).not.toContain('data:');
  });

  it('is built on PUBLIC_BASE_URL when set, whatever host the request names', async () => {
    const { user, as } = await registerMember(configured);
    const res = await configured.call(as, 'GET', `/users/${user.id}`, {
      headers: { 'x-forwarded-proto': 'http' },
    });
    expect(res.body.data.avatar).toBe(`https://community.example/avatars/${user.id}.svg`);
  });

  it('is the URL a user set, and the default one again after `avatar: null`', async () => {
    const { user, as } = await registerMember(h);
    const mine = 'https://images.example.org/me.png';
    expect((await h.call(as, 'PUT', '/users/me', { body: { avatar: mine } })).body.data.avatar).toBe(mine);
    const reset = await h.call(as, 'PUT', '/users/me', { body: { avatar: null } });
    expect(reset.body.data.avatar).toBe(`${new URL(h.url).origin}/avatars/${user.id}.svg`);
    expect((await h.call(actor(user.id), 'GET', `/users/${user.id}`)).body.data.avatar).toMatch(/^http:\/\//);
  });

  it('refuses a data: URI as the avatar a user sets', async () => {
    const { as } = await registerMember(h);
    const res = await h.call(as, 'PUT', '/users/me', { body: { avatar: 'data:image/svg+xml,<svg/>' } });
    expect(res.status).toBe(400);
    expect(res.body.details.field).toBe('avatar');
  });
});
