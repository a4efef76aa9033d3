import { z } from 'zod';
import { SCOPES } from './access';

// The wire formats of the OAuth 2.0 protocol endpoints. They are the RFCs' formats, not the API
// envelope: form bodies in, RFC 6749 JSON out. The library that runs the grants parses the requests;
// these schemas are what the OpenAPI document describes and what users-service answers with.

/** A PKCE S256 code challenge: base64url of a SHA-256, no padding (RFC 7636 §4.2). */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** An authorization request's `state`: printable ASCII, at most 500 characters (echoed in a URL). */
export const OAUTH_STATE = /^[\x20-\x7e]{0,500}$/;

const scopeParam = z
  .string()
  .meta({ description: `Space-separated scopes: ${SCOPES.join(', ')}. Omitted: \`read\`.` });

/** `GET /api/v1/oauth/authorize` (RFC 6749 §4.1.1 with PKCE, RFC 7636 §4.3). */
export const authorizationQuery = z.object({
  response_type: z.literal('code').meta({ description: 'Only the authorization code flow.' }),
  client_id: z.string().meta({ description: 'The app’s client id (`cpi_…`).' }),
  redirect_uri: z.string().meta({
    description: 'One of the app’s registered redirect URIs, exactly (a loopback IP URI may use any port).',
  }),
  scope: scopeParam.optional(),
  state: z.string().regex(OAUTH_STATE).optional().meta({ description: 'Echoed back to the redirect URI.' }),
  code_challenge: z
    .string()
    .regex(S256_CHALLENGE)
    .optional()
    .meta({ description: 'PKCE: BASE64URL(SHA256(code_verifier)); required for public apps.' }),
  code_challenge_method: z.literal('S256').optional().meta({ description: 'PKCE: only `S256`.' }),
});
export type AuthorizationQuery = z.infer<typeof authorizationQuery>;

/** The parameters of an authorization request, as the consent form carries them along. */
export const AUTHORIZATION_PARAMS = Object.keys(authorizationQuery.shape) as (keyof AuthorizationQuery)[];

/** The answer of the authorization endpoint: where it sends the browser. */
export const redirectSchema = z.strictObject({ location: z.string() });
export type Redirect = z.infer<typeof redirectSchema>;

// client_secret_post, or a public client naming itself; with HTTP Basic both are left out.
const clientFields = {
  client_id: z.string().optional().meta({ description: 'Without HTTP Basic: the client id.' }),
  client_secret: z
    .string()
    .optional()
    .meta({ description: 'Without HTTP Basic, for confidential apps: the client secret.' }),
};

/** `POST /api/v1/oauth/token` (RFC 6749 §4.1.3, §6, §4.4): one form per grant type. */
export const tokenRequest = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal('authorization_code'),
    code: z.string().meta({ description: 'The code from the redirect (`cpa_…`, 60 s, one use).' }),
    redirect_uri: z.string().meta({ description: 'The redirect URI of the authorization request.' }),
    code_verifier: z
      .string()
      .optional()
      .meta({ description: 'PKCE: the verifier of the challenge sent to /oauth/authorize.' }),
    ...clientFields,
  }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: z.string().meta({ description: 'The refresh token (`cpr_…`); it is used up.' }),
    scope: scopeParam.optional(),
    ...clientFields,
  }),
  z.object({ grant_type: z.literal('client_credentials'), scope: scopeParam.optional(), ...clientFields }),
]);

/** A successful token answer (RFC 6749 §5.1). */
export const tokenResponse = z.strictObject({
  access_token: z.string().meta({ description: 'The bearer for API calls (`cpo_…`).' }),
  token_type: z.literal('Bearer'),
  expires_in: z
    .int()
    .min(0)
    .optional()
    .meta({ description: 'Seconds until the access token expires (left out when less than one).' }),
  refresh_token: z.string().optional().meta({
    description: 'A new refresh token (`cpr_…`) that replaces the one sent; not for client credentials.',
  }),
  scope: z.string().meta({ description: 'The scopes granted, space-separated.' }),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

/** `POST /api/v1/oauth/revoke` (RFC 7009 §2.1). */
export const revocationRequest = z.object({
  token: z.string().meta({ description: 'An access token (`cpo_…`) or refresh token (`cpr_…`).' }),
  token_type_hint: z.string().optional().meta({ description: 'Accepted and not needed (RFC 7009 §2.1).' }),
  ...clientFields,
});

/** What revocation answers: an empty object in the envelope (RFC 7009 clients read only the status). */
export const revocationResultSchema = z.strictObject({});
export type RevocationResult = z.infer<typeof revocationResultSchema>;

/** The error codes of the token and revocation endpoints (RFC 6749 §5.2, RFC 7009 §2.2.1). */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export function isOAuthErrorCode(value: string): value is OAuthErrorCode {
  return (OAUTH_ERROR_CODES as readonly string[]).includes(value);
}

/** An error of the token and revocation endpoints (RFC 6749 §5.2), never the API envelope. */
export const oauthErrorSchema = z.strictObject({
  error: z.enum(OAUTH_ERROR_CODES),
  error_description: z.string(),
});
export type OAuthErrorBody = z.infer<typeof oauthErrorSchema>;

/** `GET /.well-known/oauth-authorization-server` (RFC 8414 §2): what clients configure themselves from. */
export const authorizationServerMetadataSchema = z.strictObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.enum(SCOPES)),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
});
export type AuthorizationServerMetadata = z.infer<typeof authorizationServerMetadataSchema>;

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/** What this server supports (RFC 8414), for an issuer such as `https://api.example.com`. */
export function authorizationServerMetadata(issuer: string): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/api/v1/oauth/authorize`,
    token_endpoint: `${issuer}/api/v1/oauth/token`,
    revocation_endpoint: `${issuer}/api/v1/oauth/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
  };
}
