import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import type { Tx } from '@community/db';
import { revokeGrant, revokeToken, type TokenRow } from '../../db/oauth-grants.repository';

/** Tells the gateway which cached access tokens stopped working (DESIGN.md §1, events). */
export async function announceRevoked(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length > 0) await enqueueEvent(tx, 'oauth_token.revoked', { ids });
}

/**
 * Ends a grant: every code and token that came from it stops working. Used when a code or a rotated
 * refresh token is presented twice (RFC 6749 §4.1.2, RFC 9700) and when a refresh token is revoked.
 */
export async function revokeGrantFamily(deps: TxDeps, grantId: number): Promise<void> {
  await commitWithEvents(deps, async (tx) => announceRevoked(tx, await revokeGrant(tx, grantId)));
}

/**
 * RFC 7009: revoking a refresh token ends its whole grant; revoking an access token ends that token
 * alone (its refresh token keeps working, as the RFC allows).
 */
export async function revokeIssuedToken(deps: TxDeps, token: TokenRow): Promise<void> {
  if (token.kind === 'refresh') return revokeGrantFamily(deps, token.grantId);
  await commitWithEvents(deps, async (tx) => {
    if (await revokeToken(tx, token.id)) await announceRevoked(tx, [token.id]);
  });
}
