import postgres from 'postgres';
import { createDb, isConnectionError } from '@community/db';
import { dropRoles, testInfra, testRoleName } from '@community/test-harness';

// A server that refuses the service's login — a role password rotated before the service's
// DATABASE_URL (docs/operations.md, "Rotating secrets"), a role not yet allowed to log in — is a
// database the service cannot reach for now: its requests get 503 with Retry-After, never 500.
describe('a login the server refuses', () => {
  const role = testRoleName('refused');
  const admin = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
  beforeAll(() => admin.unsafe(`create role "${role}" nologin`));
  afterAll(async () => {
    await admin.end();
    await dropRoles([role]);
  });

  it('is a connection error, as a refused or dropped connection is', async () => {
    const url = new URL(testInfra().pgUrl);
    url.username = role;
    const sql = createDb(url.toString(), { schema: 'x' });
    const err = await sql`select 1`.catch((e: unknown) => e);
    await sql.end();
    // 28000: invalid authorization; a wrong password is 28P01 (trust auth here cannot show it; the
    // container stage does, e2e/test/compose-rotation).
    expect(err).toMatchObject({ code: '28000' });
    expect(isConnectionError(err)).toBe(true);
  });
});
