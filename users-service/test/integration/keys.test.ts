import { createHash } from 'node:crypto';
import { apiKeySchema, createdKeySchema, listEnvelope, singleEnvelope } from '@community/contracts';
import { actor, waitFor, withProbe, type Probed } from '@community/test-harness';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: Probed<UsersHarness>;
beforeAll(async () => {
  h = await withProbe(await startUsersService('keys'));
});
afterAll(() => h.stop());

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const resolve = (key: string) =>
  h.call(null, 'POST', '/internal/keys/resolve', { body: { key_hash: sha256(key) } });

describe('POST /api/v1/keys', () => {
  it('mints cpk_ + 40 base62 once, storing only its SHA-256 and 12-character prefix', async () => {
    const { as } = await registerMember(h);
    const res = await h.call(as, 'POST', '/keys', { body: { name: 'CI bot' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const key = singleEnvelope(createdKeySchema).parse(res.body).data;
    expect(key.key).toMatch(/^cpk_[0-9A-Za-z]{40}$/);
    expect(key).toMatchObject({
      name: 'CI bot',
      prefix: key.key.slice(0, 12),
      scopes: ['read', 'write'],
      expires_at: null,
    });
    const stored = await h.sql`select * from api_keys where id = ${key.id}`;
    expect(JSON.stringify(stored)).not.toContain(key.key);
    expect(Buffer.from(stored[0]!.keyHash).toString('hex')).toBe(sha256(key.key));
    const listed = await h.call(as, 'GET', '/keys');
    listEnvelope(apiKeySchema).parse(listed.body);
    expect(listed.text).not.toContain(key.key);
    expect(listed.body.data[0]).toMatchObject({ id: key.id, prefix: key.prefix, last_used_at: null });
  });

  it('never grants a scope beyond the creating key', async () => {
    const { user } = await registerMember(h);
    const limited = actor(user.id, 'member', ['read', 'keys']);
    const res = await h.call(limited, 'POST', '/keys', {
      body: { name: 'escalate', scopes: ['read', 'write'] },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
    const defaults = await h.call(limited, 'POST', '/keys', { body: { name: 'defaults' } });
    expect(defaults.body.data.scopes).toEqual(['read']);
    const member = actor(user.id, 'member', ['read', 'write', 'keys', 'moderate']);
    const moderate = await h.call(member, 'POST', '/keys', { body: { name: 'mod', scopes: ['moderate'] } });
    expect(moderate.body.details.required_scope).toBe('moderate');
  });

  it.each([
    ['9999-12-31T23:59:59-23:59', 'an offset that carries it past 9999-12-31Z'],
    ['+010000-01-01T00:00:00Z', 'a six-digit year'],
    ['2027-02-30T00:00:00Z', 'a day February does not have'],
    ['2027-01-01T24:00:01Z', 'an hour past midnight'],
  ])('refuses expires_at %s (%s) with 400, never a 500', async (expires_at) => {
    const { as } = await registerMember(h);
    const res = await h.call(as, 'POST', '/keys', { body: { name: 'far future', expires_at } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', details: { field: 'expires_at' } });
  });

  it('accepts the last second of 9999, with or without an offset that keeps it there', async () => {
    const { as } = await registerMember(h);
    for (const expires_at of ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59+01:00']) {
      const res = await h.call(as, 'POST', '/keys', { body: { name: 'until 9999', expires_at } });
      expect(res.status).toBe(201);
      expect(res.body.data.expires_at).toMatch(/^9999-12-31T2\d:59:59Z$/);
    }
  });

  it('needs the keys scope on the calling key', async () => {
    const { user } = await registerMember(h);
    const res = await h.call(actor(user.id, 'member', ['read', 'write']), 'GET', '/keys');
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'keys' } });
    expect((await h.call(null, 'GET', '/keys')).status).toBe(401);
  });

  it.each([
    [{}, 'name', 'required'],
    [{ name: 'x', scopes: [] }, 'scopes', 'too_small'],
    [{ name: 'x', scopes: ['superuser'] }, 'scopes.0', 'invalid_value'],
    [{ name: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at', 'invalid_value'],
    [{ name: 'x', expires_at: 'tomorrow' }, 'expires_at', 'invalid_value'],
    [{ name: 'x', key: 'cpk_mine' }, 'key', 'unrecognized_key'],
  ])('validates case %#', async (body, field, code) => {
    const { as } = await registerMember(h);
    const res = await h.call(as, 'POST', '/keys', { body });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });
});

describe('internal key resolution for the gateway', () => {
  it('resolves a live key to the account, its plan limits and scopes', async () => {
    const { user, as } = await registerMember(h);
    const { key } = (await h.call(as, 'POST', '/keys', { body: { name: 'k', scopes: ['read'] } })).body.data;
    const res = await resolve(key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      credential: 'api_key',
      key_id: expect.any(Number),
      user_id: user.id,
      role: 'member',
      plan: 'free',
      limits: { hourly: 100, daily: 1000 },
      scopes: ['read'],
      expires_at: null,
      suspension: null,
    });
    await h.call(h.admin, 'PUT', `/users/${user.id}/plan`, {
      body: { plan: 'enterprise', hourly_limit: 50, daily_limit: 20 },
    });
    expect((await resolve(key)).body.data).toMatchObject({
      plan: 'enterprise',
      limits: { hourly: 50, daily: 20 },
    });
  });

  it('does not resolve unknown, revoked or expired keys', async () => {
    expect((await resolve('cpk_' + 'x'.repeat(40))).status).toBe(404);
    const { user, as } = await registerMember(h);
    const created = (
      await h.call(as, 'POST', '/keys', {
        body: { name: 'short-lived', expires_at: new Date(Date.now() + 60_000).toISOString() },
      })
    ).body.data;
    expect((await resolve(created.key)).status).toBe(200);
    await h.sql`update api_keys set expires_at = now() - interval '1 second' where id = ${created.id}`;
    expect((await resolve(created.key)).status).toBe(404);
    const revoked = (await h.call(as, 'POST', '/keys', { body: { name: 'to revoke' } })).body.data;
    const del = await h.call(as, 'DELETE', `/keys/${revoked.id}`);
    expect(del.body).toEqual({ success: true, data: { id: revoked.id, deleted: true } });
    expect((await resolve(revoked.key)).status).toBe(404);
    const event = await waitFor(
      () =>
        (h.probe.bodies() as any[]).find((b) => b.event === 'api_key.revoked' && b.data.id === revoked.id),
      {
        what: 'api_key.revoked',
      },
    );
    expect(event.data).toEqual({ id: revoked.id, user_id: user.id, prefix: revoked.prefix });
  });

  it("answers 404 for another user's key, and for a second revoke", async () => {
    const owner = await registerMember(h);
    const other = await registerMember(h);
    const key = (await h.call(owner.as, 'POST', '/keys', { body: { name: 'mine' } })).body.data;
    expect((await h.call(other.as, 'DELETE', `/keys/${key.id}`)).status).toBe(404);
    expect((await resolve(key.key)).status).toBe(200);
    await h.call(owner.as, 'DELETE', `/keys/${key.id}`);
    expect((await h.call(owner.as, 'DELETE', `/keys/${key.id}`)).status).toBe(404);
  });

  it('refuses resolution requests that did not come from the gateway', async () => {
    const res = await h.call(null, 'POST', '/internal/keys/resolve', {
      body: { key_hash: 'a'.repeat(64) },
      unsigned: true,
    });
    expect(res.status).toBe(401);
  });

  it('records last use in batches, never moving backwards', async () => {
    const { as } = await registerMember(h);
    const key = (await h.call(as, 'POST', '/keys', { body: { name: 'used' } })).body.data;
    await resolve(key.key);
    const reported = await h.call(null, 'POST', '/internal/keys/usage', {
      body: { used: [{ key_id: key.id, at: '2001-01-01T00:00:00Z' }] },
    });
    expect(reported.body.data).toEqual({ recorded: 1 });
    const lastUsed = await waitFor(
      async () => (await h.call(as, 'GET', '/keys')).body.data.find((k: any) => k.id === key.id).last_used_at,
      { what: 'last_used_at to be flushed', timeoutMs: 10_000 },
    );
    expect(Date.parse(lastUsed)).toBeGreaterThan(Date.now() - 60_000);
  });
});
