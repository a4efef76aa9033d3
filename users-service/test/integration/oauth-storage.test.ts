import { createHash } from 'node:crypto';
import { signIdentity } from '@community/http-kit';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;

beforeAll(async () => {
  h = await startUsersService('oauth_storage', { OAUTH_ISSUER: 'https://api.example.test/' });
});

afterAll(async () => {
  await h?.stop();
});

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Everything the OAuth tables hold, as text, to look for a plain secret or token. */
async function everythingStored(): Promise<string> {
  const rows = await h.sql`
    select row_to_json(x)::text as row from (
      select to_jsonb(a) as r from oauth_apps a
      union all select to_jsonb(g) from oauth_grants g
      union all select to_jsonb(c) from oauth_codes c
      union all select to_jsonb(t) from oauth_tokens t) x`;
  return rows.map((row) => row.row as string).join('\n');
}

it('stores only SHA-256 hashes of client secrets and tokens', async () => {
  const { as } = await registerMember(h);
  const created = await h.call(as, 'POST', '/oauth/apps', {
    body: { name: 'Hash check', redirect_uris: ['https://hash.example/cb'] },
  });
  expect(created.status).toBe(201);
  const { client_id, client_secret } = created.body.data as { client_id: string; client_secret: string };

  const token = await h.call(null, 'POST', '/oauth/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
  });
  expect(token.status).toBe(200);
  expect(token.headers.get('cache-control')).toBe('no-store');
  const accessToken = token.body.access_token as string;

  const [app] = await h.sql`select secret_hash from oauth_apps where client_id = ${client_id}`;
  expect((app!.secretHash as Buffer).equals(sha256(client_secret))).toBe(true);
  const [stored] = await h.sql`select kind from oauth_tokens where token_hash = ${sha256(accessToken)}`;
  expect(stored!.kind).toBe('access');
  const dump = await everythingStored();
  expect(dump).toContain(client_id);
  expect(dump).not.toContain(client_secret);
  expect(dump).not.toContain(accessToken);
});

it('publishes the configured issuer in its metadata', async () => {
  const res = await fetch(`${h.url}/.well-known/oauth-authorization-server`, {
    headers: signIdentity(h.config.INTERNAL_TOKEN, {
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      actor: null,
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  expect(await res.json()).toMatchObject({
    issuer: 'https://api.example.test',
    token_endpoint: 'https://api.example.test/api/v1/oauth/token',
  });
});

it('refuses token requests that did not come through the gateway, in the OAuth error format', async () => {
  const res = await h.call(null, 'POST', '/oauth/token', {
    unsigned: true,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(401);
  expect(res.body).toEqual({
    error: 'invalid_request',
    error_description: 'requests must come through the API gateway',
  });
});
