import { actor } from '@community/test-harness';
import { suspensionSchema } from '@community/contracts';
import { startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §12: PUT/DELETE /users/{id}/suspension in users-service, and what the key lookup says.

let h: UsersHarness;
let member: number;
let admin: number;
beforeAll(async () => {
  h = await startUsersService('suspension');
  member = await register('suspendee');
  admin = await register('chief');
  await h.sql`update users set role = 'admin' where id = ${admin}`;
});
afterAll(() => h.stop());

let ips = 0;
async function register(name: string): Promise<number> {
  const res = await h.call(null, 'POST', '/auth/register', {
    body: { username: name, email: `${name}@example.test`, password: 'a good long password' },
    clientIp: `10.8.0.${++ips}`,
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data.id as number;
}

const moderator = actor(7001, 'moderator', ['read', 'write', 'moderate']);
const suspend = (id: number, body: object, as = moderator) =>
  h.call(as, 'PUT', `/users/${id}/suspension`, { body });
const lift = (id: number, as = moderator) => h.call(as, 'DELETE', `/users/${id}/suspension`);

const events = async (userId: number) =>
  (
    await h.sql<{ event: string; data: { action?: string; reason?: string | null } }[]>`
      select event, payload->'data' as data from outbox
      where (event = 'user.access_changed' and payload->'data'->>'id' = ${String(userId)})
         or (event = 'moderation.action' and payload->'data'->>'target_id' = ${String(userId)})
      order by id`
  ).map(({ event, data }) =>
    event === 'moderation.action' ? `${event}:${data.action}:${data.reason}` : event,
  );

describe('suspension in users-service', () => {
  it('suspends, replaces and lifts, each with the events the gateway and the audit log need', async () => {
    const first = await suspend(member, { reason: 'spam' });
    expect(first.status).toBe(200);
    expect(suspensionSchema.parse(first.body.data)).toMatchObject({
      user_id: member,
      until: null,
      reason: 'spam',
    });
    const second = await suspend(member, { reason: 'still spam', until: '2099-01-01T00:00:00Z' });
    expect(second.body.data).toMatchObject({ until: '2099-01-01T00:00:00Z', reason: 'still spam' });
    expect(await h.sql`select count(*)::int as n from suspensions where user_id = ${member}`).toEqual([
      { n: 1 },
    ]);
    expect((await lift(member)).body.data).toEqual({ user_id: member, lifted: true });
    expect((await lift(member)).status).toBe(404);
    expect(await events(member)).toEqual([
      'user.access_changed',
      'moderation.action:suspend:spam',
      'user.access_changed',
      'moderation.action:suspend:still spam',
      'user.access_changed',
      'moderation.action:unsuspend:null',
    ]);
  });

  it('refuses an admin target, yourself, a member, an unknown user and bad bodies', async () => {
    expect((await suspend(admin, { reason: 'x' })).status).toBe(403);
    expect((await suspend(7001, { reason: 'x' })).status).toBe(403);
    const asMember = await suspend(
      member,
      { reason: 'x' },
      actor(member + 1000, 'member', ['read', 'write']),
    );
    expect(asMember.status).toBe(403);
    expect((await suspend(99_999_999, { reason: 'x' })).status).toBe(404);
    expect((await lift(99_999_999)).status).toBe(404);
    for (const body of [
      {},
      { reason: '   ' },
      { reason: 'x'.repeat(501) },
      { reason: 'x', until: '2001-01-01T00:00:00Z' },
      { reason: 'x', extra: 1 },
    ]) {
      const res = await suspend(member, body);
      expect([JSON.stringify(body).slice(0, 30), res.status, res.body.error]).toEqual([
        JSON.stringify(body).slice(0, 30),
        400,
        'validation_error',
      ]);
    }
    expect(await h.sql`select count(*)::int as n from suspensions where user_id = ${member}`).toEqual([
      { n: 0 },
    ]);
  });

  it('tells the gateway of an active suspension only, for keys alike', async () => {
    const owner = actor(member, 'member', ['read', 'write', 'keys']);
    const key = (await h.call(owner, 'POST', '/keys', { body: { name: 'k' } })).body.data.key as string;
    const { createHash } = await import('node:crypto');
    const resolve = async () =>
      (
        await h.call(null, 'POST', '/internal/keys/resolve', {
          body: { key_hash: createHash('sha256').update(key).digest('hex') },
        })
      ).body.data.suspension;
    expect(await resolve()).toBeNull();
    await suspend(member, { reason: 'pause', until: '2099-01-01T00:00:00Z' });
    expect(await resolve()).toEqual({ until: '2099-01-01T00:00:00Z', reason: 'pause' });
    // An expired suspension is no suspension, with no job to remove it.
    await h.sql`update suspensions set until = now() - interval '1 second' where user_id = ${member}`;
    expect(await resolve()).toBeNull();
    expect((await lift(member)).status).toBe(404);
  });
});
