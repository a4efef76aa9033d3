import { effectiveScopes } from '@community/access';
import { NotFoundError, PLAN_LIMITS, toTimestamp, type ResolvedKey } from '@community/contracts';
import type { Sql } from '@community/db';
import { findKeyOwner, type KeyOwner } from '../../db/keys.repository';
import { findAccessTokenOwner } from '../../db/oauth-grants.repository';
import type { UsageTracker } from './usage-tracker';

/**
 * The gateway's lookup: the hash of a bearer credential — an API key or an OAuth access token — to
 * the account and its rights. Unknown, revoked and expired credentials are all "not found"; the
 * gateway answers 401 for each alike.
 */
export async function resolveKey(sql: Sql, usage: UsageTracker, keyHashHex: string): Promise<ResolvedKey> {
  const hash = Buffer.from(keyHashHex, 'hex');
  const key = await findKeyOwner(sql, hash);
  if (key) {
    usage.touch(key.keyId);
    return { credential: 'api_key', ...rights(key), scopes: key.scopes };
  }
  const token = await findAccessTokenOwner(sql, hash);
  if (!token) throw new NotFoundError('key');
  // A token never exceeds what its user's role allows today.
  return {
    credential: 'access_token',
    ...rights(token),
    scopes: [...effectiveScopes(token.role, token.scopes)],
  };
}

function rights(owner: KeyOwner): Omit<ResolvedKey, 'credential' | 'scopes'> {
  return {
    key_id: owner.keyId,
    user_id: owner.userId,
    role: owner.role,
    plan: owner.plan,
    limits:
      owner.plan === 'enterprise'
        ? { hourly: owner.hourlyLimit!, daily: owner.dailyLimit! }
        : PLAN_LIMITS[owner.plan],
    expires_at: owner.expiresAt ? toTimestamp(owner.expiresAt) : null,
    suspension: owner.suspended
      ? {
          until: owner.suspendedUntil ? toTimestamp(owner.suspendedUntil) : null,
          reason: owner.suspensionReason ?? '',
        }
      : null,
  };
}
