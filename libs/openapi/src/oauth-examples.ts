import type { z } from 'zod';
import { authorizationServerMetadata, type OAuthErrorBody, type OAuthErrorCode } from '@community/contracts';
import type { REQUESTS, RESOURCES } from './schemas';

// The OAuth examples, typed by the contract schemas like the rest (examples.ts spreads them in).

type OAuthResource =
  | 'OAuthApp'
  | 'OAuthAppWithSecret'
  | 'Redirect'
  | 'TokenResponse'
  | 'RevocationResult'
  | 'AuthorizationServerMetadata';
type OAuthRequest = 'CreateOAuthAppRequest' | 'TokenRequest' | 'RevocationRequest';

const at = '2026-02-07T10:15:00Z';
const issuer = 'https://api.example.org';
const redirectUri = 'https://report.example.org/callback';
const clientId = 'cpi_R2v9XkQ4mT7bW1zL8cN3pD6s';
const authorize =
  '/account/oauth/authorize?response_type=code&client_id=cpi_R2v9XkQ4mT7bW1zL8cN3pD6s&redirect_uri=https%3A%2F%2Freport.example.org%2Fcallback&scope=read+write&state=af0ifjsldkj&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';

const app = {
  id: 11,
  client_id: clientId,
  name: 'Nightly report',
  client_type: 'confidential' as const,
  redirect_uris: [redirectUri],
  created_at: at,
  secret_issued_at: at,
};

export const OAUTH_RESOURCE_EXAMPLES: { [K in OAuthResource]: z.output<(typeof RESOURCES)[K]> } = {
  OAuthApp: app,
  OAuthAppWithSecret: { ...app, client_secret: 'cps_Hq3Lr8ZtV2nB6yK0wP5sJ9dX1cF4gM7aE2uR8iO3' },
  Redirect: { location: authorize },
  TokenResponse: {
    access_token: 'cpo_T5nW8qZ2xR4kV7bM1cL9pJ3sD6fH0gY2aE5uN8iQ',
    token_type: 'Bearer',
    expires_in: 3599,
    refresh_token: 'cpr_K7mQ2wX9zR4tV1bN6cL3pJ8sD5fH0gY2aE7uM4iP',
    scope: 'read write',
  },
  RevocationResult: {},
  AuthorizationServerMetadata: authorizationServerMetadata(issuer),
};

export const OAUTH_REQUEST_EXAMPLES: { [K in OAuthRequest]: z.input<(typeof REQUESTS)[K]> } = {
  CreateOAuthAppRequest: {
    name: 'Nightly report',
    redirect_uris: [redirectUri],
    client_type: 'confidential',
  },
  TokenRequest: {
    grant_type: 'authorization_code',
    code: 'cpa_Z8xV3nQ6mT1bW4zL7cN2pD5sK9fH0gY3aE6uR1iO',
    redirect_uri: redirectUri,
    code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  },
  RevocationRequest: {
    token: 'cpr_K7mQ2wX9zR4tV1bN6cL3pJ8sD5fH0gY2aE7uM4iP',
    token_type_hint: 'refresh_token',
  },
};

/** One RFC 6749 §5.2 error per code, as users-service writes them. */
export const OAUTH_ERROR_EXAMPLES: Record<OAuthErrorCode, OAuthErrorBody> = {
  invalid_request: { error: 'invalid_request', error_description: 'Missing parameter: `grant_type`' },
  invalid_client: { error: 'invalid_client', error_description: 'Invalid client: client is invalid' },
  invalid_grant: {
    error: 'invalid_grant',
    error_description: 'Invalid grant: authorization code is invalid',
  },
  unauthorized_client: {
    error: 'unauthorized_client',
    error_description: 'Unauthorized client: `grant_type` is invalid',
  },
  unsupported_grant_type: {
    error: 'unsupported_grant_type',
    error_description: 'Unsupported grant type: `grant_type` is invalid',
  },
  invalid_scope: { error: 'invalid_scope', error_description: 'Invalid scope: Requested scope is invalid' },
  server_error: { error: 'server_error', error_description: 'an internal error occurred' },
  temporarily_unavailable: {
    error: 'temporarily_unavailable',
    error_description: 'try again in a few seconds',
  },
};
