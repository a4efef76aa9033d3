import { InvalidClientError, InvalidGrantError, InvalidRequestError } from '@node-oauth/oauth2-server';
import type { TxDeps } from '@community/events';
import { findToken } from '../../db/oauth-grants.repository';
import { readClientCredentials } from './client-credentials';
import { hashSecret, looksLike } from './oauth-material';
import { oauthModel, type OAuthClient } from './oauth-model';
import { revokeIssuedToken } from './revocation';

async function authenticateClient(
  deps: TxDeps,
  authorization: string | undefined,
  body: Record<string, string>,
) {
  const credentials = readClientCredentials(authorization, body);
  const client = await oauthModel(deps, 'token').getClient(credentials.clientId, credentials.clientSecret);
  if (!client) {
    throw new InvalidClientError(
      'Invalid client: client is invalid',
      credentials.viaHeader ? { code: 401 } : {},
    );
  }
  return client;
}

/**
 * RFC 7009 token revocation. The client authenticates as at the token endpoint; a token we do not
 * know (or one already revoked or expired) is answered like a revoked one, with success.
 */
export async function revokePresentedToken(
  deps: TxDeps,
  authorization: string | undefined,
  body: Record<string, string>,
): Promise<void> {
  const client: OAuthClient = await authenticateClient(deps, authorization, body);
  const token = body.token;
  if (!token) throw new InvalidRequestError('Missing parameter: `token`');
  if (!looksLike('accessToken', token) && !looksLike('refreshToken', token)) return;
  const row = await findToken(deps.sql, hashSecret(token));
  if (!row) return;
  if (row.clientId !== client.id)
    throw new InvalidGrantError('Invalid grant: the token was issued to another client');
  await revokeIssuedToken(deps, row);
}
