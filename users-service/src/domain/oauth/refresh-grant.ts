import type OAuth2Server from '@node-oauth/oauth2-server';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type';

/**
 * The library's refresh grant with its steps in a safe order: a request for a wider scope fails
 * with `invalid_scope` before the presented refresh token is retired. The library retires it first,
 * so the natural retry without the wider scope looked like a replay and ended the whole grant.
 */
export class ScopeFirstRefreshGrant extends RefreshTokenGrantType {
  override async handle(request: OAuth2Server.Request, client: OAuth2Server.Client) {
    const presented = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, presented);
    const retired = await this.revokeToken(presented);
    return this.saveToken(retired.user, client, scope);
  }
}
