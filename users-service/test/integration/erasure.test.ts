import { createHash } from 'node:crypto';
import { RateLimitedError } from '@community/contracts';
import type { EventEnvelope } from '@community/events';
import { waitFor, withProbe, type Probed } from '@community/test-harness';
import { FAILED_LOGINS_ALLOWED, login } from '../../src/domain/accounts/sessions';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §20 in users-service: the erasure itself, journaled, and the events that carry it on.

let h: Probed<UsersHarness>;
beforeAll(async () => {
  h = await withProbe(await startUsersService('erasure'));
});
afterAll(() => h.stop());

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const resolve = (key: string) =>
  h.call(null, 'POST', '/internal/keys/resolve', { body: { key_hash: sha256(key) } });
const published = (event: string, id: number) =>
  waitFor(
    () =>
      (h.probe.bodies() as EventEnvelope<any>[]).filter(
        (body) => body.event === event && body.data.id === id,
      ),
    { what: `${event} for ${id}`, timeoutMs: 5000 },
  );

describe('DELETE /api/v1/users/me', () => {
  it('refuses a wrong password with 403 and changes nothing', async () => {
    const { as, user } = await registerMember(h);
    const res = await h.call(as, 'DELETE', '/users/me', { body: { password: 'not the password' } });
    expect([res.status, res.body.error]).toEqual([403, 'forbidden']);
    expect((await h.call(as, 'GET', '/users/me')).body.data.username).toBe(user.username);
  });

  it('counts a wrong password toward the failed-login throttle the login form uses', async () => {
    const { as, user, password } = await registerMember(h);
    const clientIp = '10.45.0.1';
    const erase = (pw: string) => h.call(as, 'DELETE', '/users/me', { body: { password: pw }, clientIp });
    for (let i = 0; i < FAILED_LOGINS_ALLOWED; i++)
      expect((await erase('not the password')).status).toBe(403);

    // Locked for this account and address: the right password too, here and on the login form.
    const locked = await erase(password);
    expect([locked.status, locked.body.error]).toEqual([429, 'rate_limit_exceeded']);
    await expect(login(h.sql, { username: user.username, password }, clientIp)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect((await h.call(as, 'GET', '/users/me')).body.data.username).toBe(user.username);
    // Another address is not locked out.
    expect(
      (await h.call(as, 'DELETE', '/users/me', { body: { password }, clientIp: '10.45.0.2' })).status,
    ).toBe(202);
  });

  it('answers 202 erasing, anonymises the profile, ends the keys, journals id and time, and tells everyone', async () => {
    const { as, user, password } = await registerMember(h);
    const key = (await h.call(as, 'POST', '/keys', { body: { name: 'bot' } })).body.data.key as string;
    expect((await resolve(key)).status).toBe(200);

    const res = await h.call(as, 'DELETE', '/users/me?content=delete', { body: { password } });
    expect([res.status, res.body.data]).toEqual([202, { status: 'erasing' }]);

    expect((await resolve(key)).status).toBe(404);
    const profile = (await h.call(h.admin, 'GET', `/users/${user.id}`)).body.data;
    expect([profile.username, profile.display_name, profile.bio]).toEqual([
      `deleted-${user.id}`,
      `deleted-${user.id}`,
      '',
    ]);
    const [row] = await h.sql<{ email: string | null; avatar: string | null }[]>`
      select email, avatar from users where id = ${user.id}`;
    expect(row).toEqual({ email: null, avatar: null });
    const journal = await h.sql`select * from erasures where user_id = ${user.id}`;
    // Id, time and how content went (for a restore's re-application, DESIGN.md §16): no personal data.
    expect(Object.keys(journal[0]!).sort()).toEqual(['content', 'erasedAt', 'userId']);
    expect(await h.sql`select 1 from sessions where user_id = ${user.id}`).toHaveLength(0);
    expect(await h.sql`select 1 from idempotency_keys where owner = ${`acct:${user.id}`}`).toHaveLength(0);

    expect((await published('user.erased', user.id))[0]!.data).toEqual({ id: user.id, content: 'delete' });
    await published('user.deleted', user.id);
    await published('user.access_changed', user.id);
  });
});

describe('DELETE /api/v1/users/{id}', () => {
  it('lets an admin erase an account, idempotently: user.deleted goes out once', async () => {
    const { user, as } = await registerMember(h);
    expect((await h.call(as, 'DELETE', `/users/${user.id}`)).status).toBe(403);
    for (let i = 0; i < 2; i++) {
      const res = await h.call(h.admin, 'DELETE', `/users/${user.id}`);
      expect([res.status, res.body.data]).toEqual([202, { status: 'erasing' }]);
    }
    await waitFor(async () => (await published('user.erased', user.id)).length === 2, {
      what: 'two erasures',
    });
    expect(await published('user.deleted', user.id)).toHaveLength(1);
    expect((await h.call(h.admin, 'DELETE', '/users/999999')).status).toBe(404);
  });
});
