// The library's refresh grant, which its own typings do not export (extendedGrantTypes can replace it).
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type' {
  import OAuth2Server from '@node-oauth/oauth2-server';

  class RefreshTokenGrantType extends OAuth2Server.AbstractGrantType {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    getRefreshToken(
      request: OAuth2Server.Request,
      client: OAuth2Server.Client,
    ): Promise<OAuth2Server.RefreshToken>;
    revokeToken(token: OAuth2Server.RefreshToken): Promise<OAuth2Server.RefreshToken>;
    // undefined when neither the token nor the request names a scope
    getScope(request: OAuth2Server.Request, token?: OAuth2Server.RefreshToken): string[];
    saveToken(
      user: OAuth2Server.User,
      client: OAuth2Server.Client,
      scope: string[] | undefined,
    ): Promise<OAuth2Server.Token>;
  }
  export = RefreshTokenGrantType;
}
