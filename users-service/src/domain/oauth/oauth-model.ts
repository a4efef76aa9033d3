import { timingSafeEqual } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { InvalidGrantError, InvalidScopeError, UnauthorizedClientError } from '@node-oauth/oauth2-server';
import { effectiveScopes } from '@community/access';
import { type OAuthClientType, type Role, type Scope } from '@community/contracts';
import { inTransaction, type Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import { findClient, type OAuthClientRow } from '../../db/oauth-apps.repository';
import {
  findCode,
  findToken,
  insertCode,
  insertGrant,
  insertToken,
  revokeToken,
  useCode,
} from '../../db/oauth-grants.repository';
import { hashSecret, looksLike, newOAuthValue } from './oauth-material';
import { isRegisteredRedirect, parseScopeParam, scopeBeyondRole } from './oauth-scopes';
import { accountSuspension } from '../users/suspension';
import { revokeGrantFamily } from './revocation';

export interface OAuthClient extends OAuth2Server.Client {
  id: string;
  appId: number;
  name: string;
  clientType: OAuthClientType;
  redirectUris: string[];
  grants: string[];
  ownerId: number;
  ownerRole: Role;
  ownerUsername: string;
}

/** The user a code or token acts for, as of now; `grantId` when it continues an existing grant. */
export interface OAuthUser {
  id: number;
  role: Role;
  grantId?: number;
}

/**
 * `authorize`: the consent page names the client; nobody authenticates as it.
 * `token`: the client authenticates — a confidential one with its secret, a public one with none.
 */
export type ClientCheck = 'authorize' | 'token';

export function toClient(row: OAuthClientRow): OAuthClient {
  return {
    id: row.clientId,
    appId: row.id,
    name: row.name,
    clientType: row.clientType,
    redirectUris: row.redirectUris,
    // Client credentials act as the owner, which only an app that can keep a secret may do.
    grants:
      row.clientType === 'confidential'
        ? ['authorization_code', 'refresh_token', 'client_credentials']
        : ['authorization_code', 'refresh_token'],
    ownerId: row.userId,
    ownerRole: row.ownerRole,
    ownerUsername: row.ownerUsername,
  };
}

function secretMatches(given: unknown, stored: Buffer | null): boolean {
  if (!stored || !looksLike('clientSecret', given)) return false;
  return timingSafeEqual(hashSecret(given), stored);
}

/**
 * A suspended account gets no new token (DESIGN.md §21): the grant it acts under is refused, but not
 * retired, so its refresh token works again once the suspension is lifted.
 */
async function refuseSuspended(sql: Sql, userId: number, refusal: () => Error): Promise<void> {
  if (await accountSuspension(sql, userId)) throw refusal();
}

const suspendedGrant = () => new InvalidGrantError('Invalid grant: the account is suspended');
// RFC 6749 §5.2: the client is fine, but may not use this grant while its owner is suspended.
const suspendedOwner = () =>
  new UnauthorizedClientError('Unauthorized client: the account that owns this app is suspended');

/**
 * The storage model @node-oauth/oauth2-server drives: the library runs the protocol (grant types, PKCE
 * verification, rotation, error codes); this decides who the client is, what a scope may be, and
 * keeps every code and token as a SHA-256 hash under its grant.
 */
export function oauthModel(deps: TxDeps, check: ClientCheck) {
  const { sql } = deps;
  return {
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      if (!looksLike('clientId', clientId)) return null;
      const row = await findClient(sql, clientId);
      if (!row) return null;
      if (check === 'token') {
        if (row.clientType === 'confidential' && !secretMatches(clientSecret, row.secretHash)) return null;
        // A public client has no secret: one sent anyway is refused rather than ignored.
        if (row.clientType === 'public' && clientSecret) return null;
      }
      return toClient(row);
    },

    async validateRedirectUri(redirectUri: string, client: OAuthClient) {
      return isRegisteredRedirect(client.redirectUris, redirectUri);
    },

    /** Known scopes within the user's role; none asked for means the default. */
    async validateScope(user: OAuthUser, _client: OAuthClient, scope?: string[]) {
      const scopes = parseScopeParam(scope?.join(' '));
      if (!scopes || scopeBeyondRole(user.role, scopes)) return false;
      return scopes;
    },

    generateAuthorizationCode: async () => newOAuthValue('code'),
    generateAccessToken: async () => newOAuthValue('accessToken'),
    generateRefreshToken: async () => newOAuthValue('refreshToken'),

    async getUserFromClient(client: OAuthClient): Promise<OAuthUser> {
      await refuseSuspended(sql, client.ownerId, suspendedOwner);
      return { id: client.ownerId, role: client.ownerRole };
    },

    async saveAuthorizationCode(
      code: Pick<
        OAuth2Server.AuthorizationCode,
        'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope'
      > & {
        codeChallenge?: string;
        codeChallengeMethod?: string;
      },
      client: OAuthClient,
      user: OAuthUser,
    ) {
      await inTransaction(sql, async (tx) => {
        const grantId = await insertGrant(tx, {
          appId: client.appId,
          userId: user.id,
          scopes: (code.scope ?? []) as Scope[],
        });
        await insertCode(tx, {
          hash: hashSecret(code.authorizationCode),
          grantId,
          redirectUri: code.redirectUri,
          codeChallenge: code.codeChallenge ?? null,
          codeChallengeMethod: code.codeChallenge ? (code.codeChallengeMethod ?? 'S256') : null,
          expiresAt: code.expiresAt,
        });
      });
      return { ...code, client, user };
    },

    /** A code used before ends its grant: whoever replays it gets nothing, and neither does the first. */
    async getAuthorizationCode(authorizationCode: string) {
      if (!looksLike('code', authorizationCode)) return null;
      const row = await findCode(sql, hashSecret(authorizationCode));
      if (!row || row.grantRevokedAt) return null;
      if (row.usedAt) {
        await revokeGrantFamily(deps, row.grantId);
        return null;
      }
      await refuseSuspended(sql, row.userId, suspendedGrant);
      return {
        authorizationCode,
        expiresAt: row.expiresAt,
        redirectUri: row.redirectUri,
        scope: row.scopes,
        client: { id: row.clientId, grants: [] },
        user: { id: row.userId, role: row.role, grantId: row.grantId } satisfies OAuthUser,
        ...(row.codeChallenge
          ? { codeChallenge: row.codeChallenge, codeChallengeMethod: row.codeChallengeMethod ?? 'S256' }
          : {}),
      };
    },

    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode) {
      return useCode(sql, hashSecret(code.authorizationCode));
    },

    /** Rotation: a refresh token works once; presenting a used one again ends the whole grant. */
    async getRefreshToken(refreshToken: string) {
      if (!looksLike('refreshToken', refreshToken)) return null;
      const row = await findToken(sql, hashSecret(refreshToken));
      if (!row || row.kind !== 'refresh' || row.grantRevokedAt) return null;
      if (row.revokedAt) {
        await revokeGrantFamily(deps, row.grantId);
        return null;
      }
      await refuseSuspended(sql, row.userId, suspendedGrant);
      return {
        refreshToken,
        refreshTokenExpiresAt: row.expiresAt,
        scope: row.scopes,
        client: { id: row.clientId, grants: [] },
        user: { id: row.userId, role: row.role, grantId: row.grantId } satisfies OAuthUser,
        tokenId: row.id,
      };
    },

    async revokeToken(token: OAuth2Server.RefreshToken) {
      return revokeToken(sql, token.tokenId as number);
    },

    /** Stores the hashes; the scopes are cut to what the user's role allows today. */
    async saveToken(token: OAuth2Server.Token, client: OAuthClient, user: OAuthUser) {
      const scopes = [...effectiveScopes(user.role, token.scope ?? [])];
      if (scopes.length === 0)
        throw new InvalidScopeError('Invalid scope: the user no longer holds any of these scopes');
      await inTransaction(sql, async (tx) => {
        const grantId =
          user.grantId ?? (await insertGrant(tx, { appId: client.appId, userId: user.id, scopes }));
        await insertToken(tx, {
          grantId,
          kind: 'access',
          hash: hashSecret(token.accessToken),
          scopes,
          expiresAt: token.accessTokenExpiresAt!,
        });
        if (token.refreshToken) {
          await insertToken(tx, {
            grantId,
            kind: 'refresh',
            hash: hashSecret(token.refreshToken),
            scopes,
            expiresAt: token.refreshTokenExpiresAt!,
          });
        }
      });
      return { ...token, scope: scopes, client, user };
    },

    /** Required by the library's typings; the gateway resolves access tokens through /internal instead. */
    async getAccessToken(accessToken: string) {
      if (!looksLike('accessToken', accessToken)) return null;
      const row = await findToken(sql, hashSecret(accessToken));
      if (!row || row.kind !== 'access' || row.revokedAt || row.grantRevokedAt) return null;
      return {
        accessToken,
        accessTokenExpiresAt: row.expiresAt,
        scope: row.scopes,
        client: { id: row.clientId, grants: [] },
        user: { id: row.userId, role: row.role } satisfies OAuthUser,
      };
    },
  };
}

export type OAuthModel = ReturnType<typeof oauthModel>;
