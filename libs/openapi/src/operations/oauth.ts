import { authorizationQuery, MAX_OAUTH_APPS_PER_USER } from '@community/contracts';
import type { OperationSpec } from '../operation';
import { ref } from '../responses';

const OWNER = "Owner only: another user's app is `404`.";

/** users-service: OAuth apps, the authorize redirect and the protocol endpoints (bound in users-service/src/routes). */
export const OAUTH_OPERATIONS: OperationSpec[] = [
  {
    id: 'listOAuthApps',
    method: 'get',
    path: '/oauth/apps',
    tag: 'OAuth',
    summary: 'List your OAuth apps',
    description: 'All on one page; client secrets are never shown again.',
    scope: 'keys',
    session: true,
    response: { status: 200, kind: 'page', schema: 'OAuthApp', description: 'Your apps.' },
  },
  {
    id: 'createOAuthApp',
    method: 'post',
    path: '/oauth/apps',
    tag: 'OAuth',
    summary: 'Register an OAuth app',
    description: `A \`confidential\` app (the default) gets its \`client_secret\` in this answer only; a \`public\` one (a browser or native app) has none and must use PKCE. Redirect URIs: https, or plain http on \`127.0.0.1\`, \`[::1]\` or \`localhost\`; no fragment. At most ${MAX_OAUTH_APPS_PER_USER} apps per user (\`409\` beyond).`,
    scope: 'keys',
    session: true,
    body: 'CreateOAuthAppRequest',
    response: {
      status: 201,
      kind: 'single',
      schema: 'OAuthAppWithSecret',
      description: 'The new app with its client id and, for a confidential app, its secret.',
      noStore: true,
    },
    errors: [409],
  },
  {
    id: 'getOAuthApp',
    method: 'get',
    path: '/oauth/apps/{id}',
    tag: 'OAuth',
    summary: 'Read an OAuth app',
    description: OWNER,
    scope: 'keys',
    session: true,
    response: { status: 200, kind: 'single', schema: 'OAuthApp', description: 'The app.' },
  },
  {
    id: 'deleteOAuthApp',
    method: 'delete',
    path: '/oauth/apps/{id}',
    tag: 'OAuth',
    summary: 'Delete an OAuth app',
    description: `Every token issued to it stops working within seconds. ${OWNER}`,
    scope: 'keys',
    session: true,
    response: { status: 200, kind: 'single', schema: 'Deleted', description: 'The app is gone.' },
  },
  {
    id: 'rotateOAuthAppSecret',
    method: 'post',
    path: '/oauth/apps/{id}/rotate-secret',
    tag: 'OAuth',
    summary: 'Rotate the client secret',
    description: `The old secret stops working at once; tokens already issued run to their expiry. A public app has no secret (\`409\`). ${OWNER}`,
    scope: 'keys',
    session: true,
    response: {
      status: 200,
      kind: 'single',
      schema: 'OAuthAppWithSecret',
      description: 'The app with its new secret, shown this once.',
      noStore: true,
    },
    errors: [409],
  },
  {
    id: 'authorize',
    method: 'get',
    path: '/oauth/authorize',
    tag: 'OAuth',
    summary: 'Start an authorization (code flow with PKCE)',
    description:
      'Where an app sends the user’s browser (RFC 6749 §4.1.1). Always answers `302` to the consent page `/account/oauth/authorize` with the query unchanged; that page has the user log in if needed and checks the request. An unknown `client_id` or an unregistered `redirect_uri` gets an error page there and no redirect; any other fault goes back to the app as `redirect_uri?error=…&state=…` (RFC 6749 §4.1.2.1). **Allow** sends the browser to `redirect_uri?code=cpa_…&state=…`, **Deny** to `redirect_uri?error=access_denied&state=…`.',
    scope: null,
    query: authorizationQuery,
    response: {
      status: 302,
      kind: 'single',
      schema: 'Redirect',
      description: 'To the consent page; `data.location` repeats the `Location` header.',
      noStore: true,
      headers: {
        Location: {
          description: 'The consent page, with the query of this request.',
          required: true,
          schema: { type: 'string', pattern: '^/account/oauth/authorize(\\?|$)' },
        },
      },
    },
  },
  {
    id: 'token',
    method: 'post',
    path: '/oauth/token',
    tag: 'OAuth',
    summary: 'Get tokens',
    description:
      'RFC 6749 §3.2. A form body with one of three grants: `authorization_code` (with `code`, `redirect_uri` and the PKCE `code_verifier`), `refresh_token` (answers a new refresh token and uses up the one sent; presenting a used one ends the whole grant) or `client_credentials` (confidential apps acting as their owner; no refresh token). Confidential apps authenticate with HTTP Basic (`client_secret_basic`: id and secret form-encoded, RFC 6749 §2.3.1) or `client_id` + `client_secret` in the form (`client_secret_post`); public apps send `client_id` alone. Errors are RFC 6749 §5.2 bodies `{error, error_description}`, not the API envelope.',
    scope: null,
    body: 'TokenRequest',
    form: true,
    protocol: 'oauth',
    response: {
      status: 200,
      kind: 'plain',
      schema: 'TokenResponse',
      description: 'The tokens (RFC 6749 §5.1), never cached.',
      noStore: true,
      headers: { Pragma: ref('headers', 'Pragma') },
    },
  },
  {
    id: 'revokeToken',
    method: 'post',
    path: '/oauth/revoke',
    tag: 'OAuth',
    summary: 'Revoke a token',
    description:
      'RFC 7009. The app authenticates as at the token endpoint. Revoking a refresh token ends its whole grant, access tokens included; revoking an access token ends that token. A token that is unknown, expired or already revoked is `200` too; a token issued to another app is `400 invalid_grant`.',
    scope: null,
    body: 'RevocationRequest',
    form: true,
    protocol: 'oauth',
    response: {
      status: 200,
      kind: 'single',
      schema: 'RevocationResult',
      description: 'The token is no longer valid (or never was).',
      noStore: true,
    },
  },
  {
    id: 'getAuthorizationServerMetadata',
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    server: {
      url: '/',
      description: 'The root of this gateway: RFC 8414 §3 puts the metadata there, outside /api/v1.',
    },
    tag: 'OAuth',
    summary: 'Authorization server metadata',
    description:
      'RFC 8414: the endpoints, scopes, grant types, client authentication methods and PKCE methods, so OAuth client libraries configure themselves. `issuer` is `OAUTH_ISSUER`, or else the scheme and host the request came in on.',
    scope: null,
    response: {
      status: 200,
      kind: 'plain',
      schema: 'AuthorizationServerMetadata',
      description: 'The metadata document.',
      headers: {
        'Cache-Control': {
          description:
            'Cached for 5 minutes when the issuer is configured; `no-store` when it is derived from the request.',
          required: true,
          schema: { type: 'string', enum: ['public, max-age=300', 'no-store'] },
        },
      },
    },
  },
];
