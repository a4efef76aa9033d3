import OAuth2Server from '@node-oauth/oauth2-server';
import type { TxDeps } from '@community/events';
import { oauthModel, type ClientCheck } from './oauth-model';
import { ScopeFirstRefreshGrant } from './refresh-grant';

export interface OAuthSettings {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
  /** The issuer identifier (RFC 8414); unset: the scheme and host the request came in on. */
  issuer?: string;
}

export interface OAuthDeps extends TxDeps {
  oauth: OAuthSettings;
}

/** The library's server over our model, with the lifetimes and client rules of this deployment. */
export function oauthServer(deps: OAuthDeps, check: ClientCheck): OAuth2Server {
  return new OAuth2Server({
    model: oauthModel(deps, check),
    accessTokenLifetime: deps.oauth.accessTokenTtlSeconds,
    refreshTokenLifetime: deps.oauth.refreshTokenTtlSeconds,
    authorizationCodeLifetime: deps.oauth.codeTtlSeconds,
    // PKCE carries the CSRF protection `state` used to (RFC 9700); clients may still send one.
    allowEmptyState: true,
    // Rotation: every refresh answers a new refresh token and retires the one presented.
    alwaysIssueNewRefreshToken: true,
    // Public clients refresh with their client_id alone; the model still makes confidential ones
    // authenticate, because it refuses them without their secret.
    requireClientAuthentication: { refresh_token: false },
    extendedGrantTypes: { refresh_token: ScopeFirstRefreshGrant },
  });
}
