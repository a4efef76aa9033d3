import type { Request, Router } from 'express';
import { Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import {
  authorizationServerMetadata,
  tokenResponse,
  type RevocationResult,
  type TokenResponse,
} from '@community/contracts';
import { resource, sendData } from '@community/http-kit';
import type { Logger } from '@community/logging';
import { plainBasic } from '../domain/oauth/client-credentials';
import { oauthServer, type OAuthDeps } from '../domain/oauth/oauth-server';
import { revokePresentedToken } from '../domain/oauth/revoke-presented-token';
import { formParams, oauthErrors } from './oauth-errors';

export interface OAuthProtocolDeps extends OAuthDeps {
  logger: Logger;
}

/** POST /api/v1/oauth/token (RFC 6749 §3.2): the library runs the grant; answers are never cached. */
export function tokenEndpoint(router: Router, deps: OAuthProtocolDeps): void {
  resource(router, '/', {
    post: async (req, res) => {
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
    },
  });
  router.use(oauthErrors(deps.logger));
}

/** POST /api/v1/oauth/revoke (RFC 7009): 200 whether or not the token was still live. */
export function revocationEndpoint(router: Router, deps: OAuthProtocolDeps): void {
  resource(router, '/', {
    post: async (req, res) => {
      await revokePresentedToken(deps, req.headers.authorization, formParams(req));
      res.setHeader('Cache-Control', 'no-store');
      sendData(res, {} satisfies RevocationResult);
    },
  });
  router.use(oauthErrors(deps.logger));
}

// The Host header, not X-Forwarded-Host: a client can add the latter to what the gateway forwards.
const issuerOf = (req: Request, configured?: string) => configured ?? `${req.protocol}://${req.get('host')}`;

/** GET /.well-known/oauth-authorization-server (RFC 8414), so clients configure themselves. */
export function metadataEndpoint(router: Router, deps: OAuthProtocolDeps): void {
  resource(router, '/', {
    get: (req, res) => {
      const issuer = issuerOf(req, deps.oauth.issuer);
      // A document derived from request headers must not land in a shared cache for others to read.
      res.setHeader('Cache-Control', deps.oauth.issuer ? 'public, max-age=300' : 'no-store');
      res.json(authorizationServerMetadata(issuer));
    },
  });
}
