// `@community/sdk/oauth`: an app's side of the authorization-code flow with PKCE (RFC 6749, 7636),
// refresh and revocation (RFC 7009), through oauth4webapi — a certified client none of us wrote.
// Its access tokens go to createClient({ accessToken }).
import type * as Oauth from 'oauth4webapi' with { 'resolution-mode': 'import' };

// oauth4webapi is ESM-only; loaded when first needed, so this entry also loads under CommonJS tooling.
const load = (): Promise<typeof Oauth> => import('oauth4webapi');

export interface OAuthClientOptions {
  /** The API's origin, which is its issuer (metadata at `/.well-known/oauth-authorization-server`). */
  baseUrl: string;
  clientId: string;
  /** A confidential app's secret (`cps_…`), sent with HTTP Basic; none for a public app. */
  clientSecret?: string;
  redirectUri: string;
  /** Allow an `http://` issuer — a local stack; never in production. */
  allowInsecureRequests?: boolean;
  fetch?: typeof fetch;
}

/** What the app keeps between sending the user away and the user coming back to `redirectUri`. */
export interface PendingAuthorization {
  /** Where to send the user's browser. */
  url: URL;
  state: string;
  codeVerifier: string;
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

export interface OAuthClient {
  /** A new authorization request: PKCE S256 and a fresh `state`. */
  authorizationUrl(params: { scope: string }): Promise<PendingAuthorization>;
  /** Reads the callback (checking its `state`) and exchanges the code with its verifier. */
  exchangeCode(callbackUrl: string | URL, pending: Omit<PendingAuthorization, 'url'>): Promise<TokenSet>;
  /** New tokens for a refresh token (the old refresh token stops working: they rotate). */
  refresh(refreshToken: string): Promise<TokenSet>;
  /** Revokes an access or refresh token (RFC 7009). */
  revoke(token: string): Promise<void>;
}

const tokens = (set: Oauth.TokenEndpointResponse): TokenSet => ({
  access_token: set.access_token,
  token_type: set.token_type,
  ...(set.expires_in !== undefined ? { expires_in: set.expires_in } : {}),
  ...(set.refresh_token !== undefined ? { refresh_token: set.refresh_token } : {}),
  ...(set.scope !== undefined ? { scope: set.scope } : {}),
});

/** oauth4webapi's options for every request: a local `http://` issuer, a custom fetch. */
const httpOptions = (oauth: typeof Oauth, options: OAuthClientOptions) => ({
  ...(options.allowInsecureRequests ? { [oauth.allowInsecureRequests]: true } : {}),
  ...(options.fetch ? { [oauth.customFetch]: options.fetch } : {}),
});

/** The library and the server's metadata, fetched once on first use. */
function discovery(options: OAuthClientOptions) {
  const issuer = new URL(options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''));
  let ready: Promise<{ oauth: typeof Oauth; as: Oauth.AuthorizationServer }> | undefined;
  return () =>
    (ready ??= (async () => {
      const oauth = await load();
      const res = await oauth.discoveryRequest(issuer, {
        algorithm: 'oauth2',
        ...httpOptions(oauth, options),
      });
      return { oauth, as: await oauth.processDiscoveryResponse(issuer, res) };
    })());
}

export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  const client = { client_id: options.clientId };
  const discovered = discovery(options);
  const http = (oauth: typeof Oauth) => httpOptions(oauth, options);
  const auth = (oauth: typeof Oauth) =>
    options.clientSecret ? oauth.ClientSecretBasic(options.clientSecret) : oauth.None();

  return {
    async authorizationUrl({ scope }) {
      const { oauth, as } = await discovered();
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: options.clientId,
        redirect_uri: options.redirectUri,
        scope,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      }).toString();
      return { url, state, codeVerifier };
    },

    async exchangeCode(callbackUrl, { state, codeVerifier }) {
      const { oauth, as } = await discovered();
      const params = oauth.validateAuthResponse(as, client, new URL(callbackUrl), state);
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth(oauth),
        params,
        options.redirectUri,
        codeVerifier,
        http(oauth),
      );
      return tokens(await oauth.processAuthorizationCodeResponse(as, client, res));
    },

    async refresh(refreshToken) {
      const { oauth, as } = await discovered();
      const res = await oauth.refreshTokenGrantRequest(as, client, auth(oauth), refreshToken, http(oauth));
      return tokens(await oauth.processRefreshTokenResponse(as, client, res));
    },

    async revoke(token) {
      const { oauth, as } = await discovered();
      const res = await oauth.revocationRequest(as, client, auth(oauth), token, http(oauth));
      await oauth.processRevocationResponse(res);
    },
  };
}
