import { NotFoundError, PLAN_LIMITS, toTimestamp, type ResolvedKey } from '@community/contracts';
import type { Sql } from '@community/db';
import { findKeyOwner } from '../../db/keys.repository';
import type { UsageTracker } from './usage-tracker';

/**
 * The gateway's lookup: a key hash → the account and its rights. Unknown, revoked and expired keys
 * are all "not found"; the gateway answers 401 for each alike.
 */
export async function resolveKey(sql: Sql, usage: UsageTracker, keyHashHex: string): Promise<ResolvedKey> {
  const owner = await findKeyOwner(sql, Buffer.from(keyHashHex, 'hex'));
  if (!owner) throw new NotFoundError('key');
  usage.touch(owner.keyId);
  const limits =
    owner.plan === 'enterprise'
      ? { hourly: owner.hourlyLimit!, daily: owner.dailyLimit! }
      : PLAN_LIMITS[owner.plan];
  return {
    key_id: owner.keyId,
    user_id: owner.userId,
    role: owner.role,
    plan: owner.plan,
    limits,
    scopes: owner.scopes,
    expires_at: owner.expiresAt ? toTimestamp(owner.expiresAt) : null,
  };
}
