import { SCOPE_DESCRIPTIONS, SCOPES } from '@community/contracts';
import type { OperationSpec } from './operation';

type Json = Record<string, unknown>;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const scopes = Object.fromEntries(
  SCOPES.map((scope) => [scope, `${capitalised(SCOPE_DESCRIPTIONS[scope])}.`]),
);

// Absolute paths: OpenAPI resolves relative URLs against the server URL, and `/api/v1` has no
// trailing slash, so `oauth/token` would land on `/api/oauth/token`.
const AUTHORIZE = '/api/v1/oauth/authorize';
const TOKEN = '/api/v1/oauth/token';

export const SECURITY_SCHEMES: Record<string, Json> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key or OAuth access token',
    description:
      'An API key (`cpk_` + 40 characters) from the account pages or `POST /keys`, or an OAuth access token (`cpo_…`, see `oauth2`): both go in `Authorization: Bearer`. The scopes listed per operation are the scopes it needs.',
  },
  oauth2: {
    type: 'oauth2',
    description:
      'OAuth 2.0 for apps registered under `/oauth/apps`. Authorization code with PKCE (`S256` only; required for public apps), refresh tokens that rotate on every use, and client credentials for confidential apps acting as their owner. A token never holds a scope its user’s role lacks; no `scope` means `read`. Clients can configure themselves from `/.well-known/oauth-authorization-server` (RFC 8414).',
    flows: {
      authorizationCode: { authorizationUrl: AUTHORIZE, tokenUrl: TOKEN, refreshUrl: TOKEN, scopes },
      clientCredentials: { tokenUrl: TOKEN, scopes },
    },
  },
  accountSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'cp_session',
    description: 'The account pages\u2019 session; the key and OAuth app APIs accept it with `x-csrf-token`.',
  },
  clientSecretBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'An OAuth app authenticating itself at the token and revocation endpoints: client id and secret, each form-encoded (RFC 6749 §2.3.1). Or send `client_id` (and `client_secret`) in the form instead.',
  },
};

/** Who may call an operation: a bearer or an OAuth token with its scope, or the app itself. */
export function operationSecurity(op: OperationSpec): Json[] {
  // `{}`: a public app authenticates with its `client_id` in the form alone.
  if (op.protocol === 'oauth') return [{ clientSecretBasic: [] }, {}];
  if (!op.scope) return [];
  const bearer = [{ bearerAuth: [op.scope] }, { oauth2: [op.scope] }];
  return op.session ? [...bearer, { accountSession: [] }] : bearer;
}
