import { waitFor } from '@community/test-harness';
import { unexercised } from '../support/openapi-contract';
import { REDIRECT_URI } from '../support/oauth';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// Every OAuth operation through the whole stack, each answer held against the OpenAPI document by
// gw(): the app API in the envelope, the protocol endpoints in the RFCs' own formats.

let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack('oauthcontract');
  ({ key } = await memberWithKey(stack, ['read', 'write', 'keys']));
});
afterAll(() => stack.stop());

const form = (body: Record<string, string>, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  rawBody: new URLSearchParams(body).toString(),
});
// RFC 6749 §2.3.1: id and secret are form-encoded, then joined and base64-encoded.
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

async function registerApp(body: Record<string, unknown> = {}) {
  const created = await gw(stack, 'POST', '/api/v1/oauth/apps', {
    key,
    body: { name: 'Contract app', redirect_uris: [REDIRECT_URI], ...body },
  });
  expect(created.status).toBe(201);
  return created.body.data as { id: number; client_id: string; client_secret: string | null };
}

it('apps: register, list, read, rotate the secret and delete', async () => {
  const app = await registerApp();
  expect(app.client_secret).toMatch(/^cps_/);
  const insecure = await gw(stack, 'POST', '/api/v1/oauth/apps', {
    key,
    body: { name: 'x', redirect_uris: ['http://insecure.example/cb'] },
  });
  expect(insecure.body.details.field).toBe('redirect_uris.0');
  expect((await gw(stack, 'GET', '/api/v1/oauth/apps', { key })).body.data).toHaveLength(1);
  expect((await gw(stack, 'GET', `/api/v1/oauth/apps/${app.id}`, { key })).body.data.client_id).toBe(
    app.client_id,
  );
  const rotated = await gw(stack, 'POST', `/api/v1/oauth/apps/${app.id}/rotate-secret`, { key });
  expect(rotated.body.data.client_secret).not.toBe(app.client_secret);
  const publicApp = await registerApp({ client_type: 'public' });
  const noSecret = await gw(stack, 'POST', `/api/v1/oauth/apps/${publicApp.id}/rotate-secret`, { key });
  expect(noSecret.status).toBe(409);
  expect((await gw(stack, 'DELETE', `/api/v1/oauth/apps/${app.id}`, { key })).status).toBe(200);
  expect((await gw(stack, 'GET', `/api/v1/oauth/apps/${app.id}`, { key })).status).toBe(404);
  expect((await gw(stack, 'GET', '/api/v1/oauth/apps')).status).toBe(401);
});

it('metadata and authorization: discovery at the root, a redirect to the consent page', async () => {
  const metadata = await gw(stack, 'GET', '/.well-known/oauth-authorization-server');
  expect(metadata.body.token_endpoint).toBe(`${stack.gateway}/api/v1/oauth/token`);
  const app = await registerApp({ client_type: 'public' });
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const authorize = await gw(stack, 'GET', `/api/v1/oauth/authorize?${query}`);
  expect(authorize.status).toBe(302);
  expect(authorize.headers.get('location')).toBe(`/account/oauth/authorize?${query}`);
  expect(authorize.body.data.location).toBe(authorize.headers.get('location'));
  // A bearer that is sent is still checked, even where none is needed.
  const badKey = await gw(stack, 'GET', `/api/v1/oauth/authorize?${query}`, { key: 'cpk_nope' });
  expect(badKey.status).toBe(401);
});

it('token and revocation: form bodies in, RFC 6749 answers out', async () => {
  const app = await registerApp();
  const client = basic(app.client_id, app.client_secret!);
  const token = await gw(
    stack,
    'POST',
    '/api/v1/oauth/token',
    form({ grant_type: 'client_credentials', scope: 'read' }, client),
  );
  expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read' });
  const accessToken = token.body.access_token as string;
  expect((await gw(stack, 'GET', '/api/v1/users/me', { key: accessToken })).status).toBe(200);

  const unsupported = await gw(
    stack,
    'POST',
    '/api/v1/oauth/token',
    form({ grant_type: 'password' }, client),
  );
  expect(unsupported.body.error).toBe('unauthorized_client');
  const wrong = basic(app.client_id, `cps_${'x'.repeat(40)}`);
  const refused = await gw(
    stack,
    'POST',
    '/api/v1/oauth/token',
    form({ grant_type: 'client_credentials' }, wrong),
  );
  expect(refused.status).toBe(401);
  const missing = await gw(stack, 'POST', '/api/v1/oauth/revoke', form({}, client));
  expect(missing.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });

  const revoked = await gw(stack, 'POST', '/api/v1/oauth/revoke', form({ token: accessToken }, client));
  expect(revoked.body).toEqual({ success: true, data: {} });
  await waitFor(
    async () => (await gw(stack, 'GET', '/api/v1/users/me', { key: accessToken })).status === 401,
    {
      what: 'the revoked token refused',
      timeoutMs: 5_000,
    },
  );
});

it('reached every OAuth operation with its documented success', () => {
  expect(unexercised(['OAuth'])).toEqual([]);
});
