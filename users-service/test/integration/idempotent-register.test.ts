import { startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §10: registration has no account yet, so its Idempotency-Key is kept per client address.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('idempotent_register');
});
afterAll(() => h.stop());

const register = (clientIp: string, key: string) =>
  h.call(null, 'POST', '/auth/register', {
    body: { username: 'retrying_rita', email: 'rita@example.test', password: 'a good long password' },
    headers: { 'idempotency-key': key },
    clientIp,
  });

it('replays a retried registration from the same address, and keeps addresses apart', async () => {
  const first = await register('198.51.100.7', 'signup-1');
  const again = await register('198.51.100.7', 'signup-1');
  expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
  expect(again.text).toBe(first.text);
  // Another address with the same key is another client: its request runs, and the name is taken.
  const elsewhere = await register('198.51.100.8', 'signup-1');
  expect([elsewhere.status, elsewhere.body.error, elsewhere.headers.get('idempotent-replayed')]).toEqual([
    409,
    'conflict',
    null,
  ]);
  expect(await h.sql`select 1 from users where username = 'retrying_rita'`).toHaveLength(1);
});
