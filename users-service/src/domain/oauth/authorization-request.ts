import {
  AUTHORIZATION_PARAMS,
  OAUTH_STATE,
  S256_CHALLENGE,
  type AuthorizationQuery,
  type Role,
  type Scope,
} from '@community/contracts';
import type { Sql } from '@community/db';
import { findClient } from '../../db/oauth-apps.repository';
import { looksLike } from './oauth-material';
import { toClient, type OAuthClient } from './oauth-model';
import { isRegisteredRedirect, parseScopeParam, scopeBeyondRole } from './oauth-scopes';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3) the consent form carries. */
export type AuthorizationParams = Partial<Record<keyof AuthorizationQuery, string>>;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scopes: Scope[];
  state?: string;
  params: AuthorizationParams;
}

/**
 * Either a request the user may be asked about, an error to send back to the app's redirect URI, or
 * — when the app or its redirect URI cannot be trusted — a message for the user and no redirect at all
 * (RFC 6749 §4.1.2.1).
 */
export type AuthorizationCheck =
  | { kind: 'valid'; request: AuthorizationRequest }
  | { kind: 'redirect'; location: string }
  | { kind: 'refused'; message: string };

/** The redirect that reports `error` to the app, keeping the redirect URI's own query. */
export function errorRedirect(
  redirectUri: string,
  error: string,
  description: string,
  state?: string,
): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state) url.searchParams.set('state', state);
  return url.href;
}

/** Checks an authorization request before the consent page is shown, and again when it is answered. */
export async function checkAuthorizationRequest(
  sql: Sql,
  input: Record<string, unknown>,
  role?: Role,
): Promise<AuthorizationCheck> {
  const params: AuthorizationParams = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const value = input[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') return refused(`The request names ${name} more than once.`);
    params[name] = value;
  }
  const row = looksLike('clientId', params.client_id) ? await findClient(sql, params.client_id) : null;
  if (!row) return refused('The application that sent you here is not registered.');
  const client = toClient(row);
  const redirectUri = params.redirect_uri;
  if (!redirectUri) return refused(`${client.name} did not say where to send you back (redirect_uri).`);
  if (!isRegisteredRedirect(client.redirectUris, redirectUri)) {
    return refused(`${client.name} asked to send you to an address it has not registered.`);
  }

  const state = params.state;
  const back = (error: string, description: string) =>
    ({ kind: 'redirect', location: errorRedirect(redirectUri, error, description, state) }) as const;
  if (state !== undefined && !OAUTH_STATE.test(state)) return back('invalid_request', 'state is malformed');
  if (params.response_type !== 'code') {
    return back('unsupported_response_type', 'only response_type=code is supported');
  }
  const challenge = params.code_challenge;
  if (challenge !== undefined || params.code_challenge_method !== undefined) {
    if (params.code_challenge_method !== 'S256')
      return back('invalid_request', 'code_challenge_method must be S256');
    if (!challenge || !S256_CHALLENGE.test(challenge))
      return back('invalid_request', 'code_challenge is malformed');
  } else if (client.clientType === 'public') {
    return back('invalid_request', 'public clients must use PKCE (code_challenge with S256)');
  }
  const scopes = parseScopeParam(params.scope);
  if (!scopes) return back('invalid_scope', 'scope names an unknown scope');
  const beyond = role && scopeBeyondRole(role, scopes);
  if (beyond) return back('invalid_scope', `the user's account cannot grant the ${beyond} scope`);
  return { kind: 'valid', request: { client, redirectUri, scopes, state, params } };
}

const refused = (message: string) => ({ kind: 'refused', message }) as const;
