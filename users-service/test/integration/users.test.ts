import { meSchema, singleEnvelope, userSchema, listEnvelope } from '@community/contracts';
import { actor, waitFor, withProbe, type Probed } from '@community/test-harness';
import { ADMIN, registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: Probed<UsersHarness>;
beforeAll(async () => {
  h = await withProbe(await startUsersService('users'));
});
afterAll(() => h.stop());

const eventFor = (event: string, id: number) =>
  waitFor(() => (h.probe.bodies() as any[]).find((b) => b.event === event && b.data.id === id), {
    what: event,
  });

describe('POST /api/v1/auth/register', () => {
  it('creates a member: 201, Location, lower-cased username and email, no secrets in the answer', async () => {
    const res = await h.call(null, 'POST', '/auth/register', {
      body: {
        username: '  Alice_1 ',
        email: 'Alice@Example.TEST',
        password: 'hunter2hunter2',
        display_name: 'Alice 🌸',
      },
      clientIp: '192.0.2.1',
    });
    expect(res.status).toBe(201);
    const me = singleEnvelope(meSchema).parse(res.body).data;
    expect(me).toMatchObject({
      username: 'alice_1',
      email: 'alice@example.test',
      display_name: 'Alice 🌸',
      role: 'member',
      plan: 'free',
      reputation: 0,
      badges: [],
    });
    expect(res.headers.get('location')).toBe(`/api/v1/users/${me.id}`);
    expect(res.text).not.toMatch(/hunter2|password/);
    const [row] = await h.sql`select password_hash from users where id = ${me.id}`;
    expect(row?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
  });

  it('answers a body that is not valid UTF-8 with 400 invalid_json, registering nobody', async () => {
    const res = await h.call(null, 'POST', '/auth/register', {
      raw: Buffer.concat([
        Buffer.from('{"username":"utf8_bad","email":"utf8_bad@example.test","password":"a good long pass'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]),
      headers: { 'content-type': 'application/json' },
      clientIp: '10.55.0.1',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_json', message: 'the request body is not valid UTF-8' });
    expect(await h.sql`select id from users where username = 'utf8_bad'`).toHaveLength(0);
  });

  it('publishes user.registered with exactly {id, username, display_name}', async () => {
    const { user } = await registerMember(h, { display_name: 'Evented' });
    const event = await eventFor('user.registered', user.id);
    expect(event.data).toEqual({ id: user.id, username: user.username, display_name: 'Evented' });
  });

  it('defaults the display name to the username', async () => {
    const { user } = await registerMember(h);
    expect(user.display_name).toBe(user.username);
  });

  it('answers 409 for a taken username or email, case-insensitively', async () => {
    const { user } = await registerMember(h);
    const sameName = await h.call(null, 'POST', '/auth/register', {
      body: { username: user.username.toUpperCase(), email: 'new@example.test', password: 'long enough pw' },
    });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toMatchObject({ error: 'conflict', details: { field: 'username' } });
    const sameEmail = await h.call(null, 'POST', '/auth/register', {
      body: { username: 'fresh_name', email: user.email.toUpperCase(), password: 'long enough pw' },
    });
    expect(sameEmail.body).toMatchObject({ error: 'conflict', details: { field: 'email' } });
  });

  it.each([
    [{ username: 'ab' }, 'username', 'too_short'],
    [{ username: 'x'.repeat(33) }, 'username', 'too_long'],
    [{ username: 'no spaces' }, 'username', 'invalid_value'],
    [{ email: 'not-an-email' }, 'email', 'invalid_value'],
    [{ password: 'short' }, 'password', 'too_short'],
    [{ password: 12345678901 }, 'password', 'invalid_type'],
    [{ role: 'admin' }, 'role', 'unrecognized_key'],
    [{ display_name: '' }, 'display_name', 'required'],
  ])('validates case %#: %s', async (override, field, code) => {
    const res = await h.call(null, 'POST', '/auth/register', {
      body: { username: 'valid_name', email: 'valid@example.test', password: 'long enough pw', ...override },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });

  it('limits registrations to 20 per hour per client address, with retry_after', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < 20; i++) {
      const res = await h.call(null, 'POST', '/auth/register', {
        body: { username: `burst_${i}`, email: `burst_${i}@example.test`, password: 'long enough pw' },
        clientIp: ip,
      });
      expect(res.status).toBe(201);
    }
    const refused = await h.call(null, 'POST', '/auth/register', {
      body: { username: 'burst_x', email: 'burst_x@example.test', password: 'long enough pw' },
      clientIp: ip,
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(refused.body.retry_after).toBeGreaterThanOrEqual(3500);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    const elsewhere = await h.call(null, 'POST', '/auth/register', {
      body: { username: 'burst_y', email: 'burst_y@example.test', password: 'long enough pw' },
      clientIp: '198.51.100.8',
    });
    expect(elsewhere.status).toBe(201);
  }, 60_000);
});

describe('GET /api/v1/users', () => {
  it('shows the public user exactly as the spec, never email, role, plan or secrets', async () => {
    const { user, as } = await registerMember(h);
    const res = await h.call(as, 'GET', `/users/${user.id}`);
    expect(res.status).toBe(200);
    const shown = singleEnvelope(userSchema).parse(res.body).data;
    expect(Object.keys(shown).sort()).toEqual(
      [
        'avatar',
        'badges',
        'bio',
        'display_name',
        'id',
        'joined_at',
        'reputation',
        'stats',
        'username',
      ].sort(),
    );
    expect(shown.stats).toEqual({ posts: 0, comments: 0, likes_received: 0 });
    expect(shown.avatar).toBe(`${new URL(h.url).origin}/avatars/${shown.id}.svg`);
    expect(res.text).not.toMatch(/email|password|role|plan/);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    const { as } = await registerMember(h);
    expect((await h.call(as, 'GET', '/users/999999')).status).toBe(404);
    expect((await h.call(as, 'GET', '/users/abc')).status).toBe(404);
  });

  it('lists newest first or by reputation, paginated', async () => {
    const { as } = await registerMember(h);
    const top = await registerMember(h);
    await h.sql`update users set likes_received = 5 where id = ${top.user.id}`;
    const newest = await h.call(as, 'GET', '/users?limit=2');
    listEnvelope(userSchema).parse(newest.body);
    expect(newest.body.data[0].id).toBe(top.user.id);
    expect(newest.headers.get('link')).toContain('rel="next"');
    const byReputation = await h.call(as, 'GET', '/users?sort=reputation&limit=1');
    expect(byReputation.body.data[0]).toMatchObject({ id: top.user.id, reputation: 50 });
    expect((await h.call(as, 'GET', '/users?sort=karma')).status).toBe(400);
  });

  it('needs a caller', async () => {
    expect((await h.call(null, 'GET', '/users')).status).toBe(401);
  });
});

describe('GET|PUT /api/v1/users/me', () => {
  it('shows the caller with email, role and plan', async () => {
    const { user, as } = await registerMember(h);
    const me = await h.call(as, 'GET', '/users/me');
    expect(singleEnvelope(meSchema).parse(me.body).data).toMatchObject({
      id: user.id,
      email: user.email,
      role: 'member',
      plan: 'free',
    });
  });

  it('updates the profile and publishes user.updated for the replicas', async () => {
    const { user, as } = await registerMember(h);
    const res = await h.call(as, 'PUT', '/users/me', {
      body: { display_name: 'New Name', bio: 'Hi there', avatar: 'https://img.example.test/a.png' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      display_name: 'New Name',
      bio: 'Hi there',
      avatar: 'https://img.example.test/a.png',
    });
    const event = await waitFor(
      () => (h.probe.bodies() as any[]).find((b) => b.event === 'user.updated' && b.data.id === user.id),
      { what: 'user.updated' },
    );
    expect(event.data).toEqual({
      id: user.id,
      username: user.username,
      display_name: 'New Name',
      avatar: 'https://img.example.test/a.png',
    });
  });

  it('validates the profile', async () => {
    const { as } = await registerMember(h);
    const cases: [unknown, string, string][] = [
      [{}, 'body', 'required'],
      [{ avatar: 'javascript:alert(1)' }, 'avatar', 'invalid_value'],
      [{ display_name: 'x'.repeat(51) }, 'display_name', 'too_long'],
      [{ bio: 'y'.repeat(501) }, 'bio', 'too_long'],
      [{ email: 'x@y.z' }, 'email', 'unrecognized_key'],
    ];
    for (const [body, field, code] of cases) {
      const res = await h.call(as, 'PUT', '/users/me', { body });
      expect(res.status).toBe(400);
      expect(res.body.details).toMatchObject({ field, code });
    }
  });

  it('needs the write scope to change the profile', async () => {
    const { user } = await registerMember(h);
    const res = await h.call(actor(user.id, 'member', ['read']), 'PUT', '/users/me', { body: { bio: 'x' } });
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
  });
});

describe('admin: plans and roles', () => {
  it('bootstraps the configured admin with the admin role', async () => {
    const [row] = await h.sql`select role, email from users where username = ${ADMIN.username}`;
    expect(row).toMatchObject({ role: 'admin', email: ADMIN.email });
  });

  it('changes plans; custom limits only for enterprise', async () => {
    const { user } = await registerMember(h);
    const pro = await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, { body: { plan: 'pro' } });
    expect(pro.body.data.plan).toBe('pro');
    const bad = await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, {
      body: { plan: 'beta', hourly_limit: 5 },
    });
    expect(bad.body.details).toMatchObject({ field: 'hourly_limit', code: 'invalid_value' });
    const missing = await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, {
      body: { plan: 'enterprise', hourly_limit: 50 },
    });
    expect(missing.body.details).toMatchObject({ field: 'daily_limit', code: 'required' });
    const enterprise = await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, {
      body: { plan: 'enterprise', hourly_limit: 50, daily_limit: 20 },
    });
    expect(enterprise.status).toBe(200);
    const [row] = await h.sql`select plan, hourly_limit, daily_limit from users where id = ${user.id}`;
    expect(row).toEqual({ plan: 'enterprise', hourlyLimit: 50, dailyLimit: 20 });
    const back = await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, { body: { plan: 'free' } });
    expect(back.body.data.plan).toBe('free');
    expect((await h.sql`select hourly_limit from users where id = ${user.id}`)[0]?.hourlyLimit).toBeNull();
    await eventFor('user.access_changed', user.id);
  });

  it('changes roles, and only admins with the admin scope may', async () => {
    const { user, as } = await registerMember(h);
    expect((await h.call(as, 'PUT', `/users/${user.id}/role`, { body: { role: 'admin' } })).body.error).toBe(
      'forbidden',
    );
    const scopeless = actor(h.admin.userId, 'admin', ['read', 'write']);
    expect(
      (await h.call(scopeless, 'PUT', `/users/${user.id}/role`, { body: { role: 'moderator' } })).body.error,
    ).toBe('insufficient_scope');
    const res = await h.call(h.admin, 'PUT', `/users/${user.id}/role`, { body: { role: 'moderator' } });
    expect(res.body.data.role).toBe('moderator');
    expect((await h.call(h.admin, 'PUT', `/users/${user.id}/role`, { body: { role: 'owner' } })).status).toBe(
      400,
    );
    expect((await h.call(h.admin, 'PUT', '/users/999999/role', { body: { role: 'member' } })).status).toBe(
      404,
    );
  });
});
