import type { Request } from 'express';
import { Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import {
  authorizationServerMetadata,
  tokenResponse,
  type RevocationResult,
  type TokenResponse,
} from '@community/contracts';
import { raw, sendData, type OperationHandlers } from '@community/http-kit';
import type { OAUTH_OPERATIONS } from '@community/openapi';
import type { Logger } from '@community/logging';
import { plainBasic } from '../domain/oauth/client-credentials';
import { oauthServer, type OAuthDeps } from '../domain/oauth/oauth-server';
import { revokePresentedToken } from '../domain/oauth/revoke-presented-token';
import { formParams } from './oauth-errors';

export interface OAuthProtocolDeps extends OAuthDeps {
  logger: Logger;
}

// The Host header, not X-Forwarded-Host: a client can add the latter to what the gateway forwards.
const issuerOf = (req: Request, configured?: string) => configured ?? `${req.protocol}://${req.get('host')}`;

/**
 * The handlers of the OAuth protocol operations in `OAUTH_OPERATIONS` (libs/openapi): each is mounted
 * on its own path, with form bodies and RFC wire formats (routes/index.ts). The token and revocation
 * endpoints read their form and answer their errors as the RFCs say, not as the table's runner would.
 */
export function protocolHandlers(deps: OAuthProtocolDeps) {
  return {
    // RFC 6749 §3.2: the library runs the grant; answers are never cached.
    token: raw(async (req, res) => {
      const headers = { ...req.headers } as Record<string, string>;
      if (headers.authorization) headers.authorization = plainBasic(headers.authorization)!;
      const request = new OAuthRequest({
        method: 'POST',
        headers,
        // Token parameters travel in the body only.
        query: {},
        body: formParams(req),
      });
      const response = new OAuthResponse();
      await oauthServer(deps, 'token').token(request, response);
      // The library builds the answer; the contract holds it to what the API reference promises.
      const body: TokenResponse = tokenResponse.parse(response.body);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      res.status(200).json(body);
    }),
    // RFC 7009: 200 whether or not the token was still live.
    revokeToken: raw(async (req, res) => {
      await revokePresentedToken(deps, req.headers.authorization, formParams(req));
      res.setHeader('Cache-Control', 'no-store');
      sendData(res, {} satisfies RevocationResult);
    }),
    // RFC 8414, so clients configure themselves.
    getAuthorizationServerMetadata: ({ req, res }) => {
      // A document derived from request headers must not land in a shared cache for others to read.
      res.setHeader('Cache-Control', deps.oauth.issuer ? 'public, max-age=300' : 'no-store');
      return authorizationServerMetadata(issuerOf(req, deps.oauth.issuer));
    },
  } satisfies Partial<OperationHandlers<typeof OAUTH_OPERATIONS>>;
}
