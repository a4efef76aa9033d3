import {
  ConflictError,
  deleted,
  InsufficientScopeError,
  NotFoundError,
  toTimestamp,
  ValidationError,
  type ApiKey,
  type CreatedKey,
  type CreateKeyBody,
  type Deleted,
  type Scope,
} from '@community/contracts';
import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import type { Sql } from '@community/db';
import {
  countLiveKeysLocked,
  insertKey,
  listKeys as queryKeys,
  revokeKey as markRevoked,
} from '../../db/keys.repository';
import type { ApiKeyRow } from '../../db/rows';
import { assertNotSuspended } from '../users/suspension';
import { generateKey } from './key-material';

export const DEFAULT_KEY_SCOPES: Scope[] = ['read', 'write'];
export const MAX_KEYS_PER_USER = 50;

/** Whoever mints a key: the user, the scopes the minting credential holds and when it expires. */
export interface KeyCreator {
  userId: number;
  scopes: ReadonlySet<Scope>;
  /** A key or token minting a key: its own expiry (null for the account session or a key that never expires). */
  expiresAt: Date | null;
}

/**
 * The scopes of a new key: those asked for, each held by the creator, or when none are named the
 * defaults the creator holds. A key with no scope at all could do nothing: it is refused.
 */
function scopesFor(creator: KeyCreator, asked: Scope[] | undefined): Scope[] {
  const scopes = asked ?? DEFAULT_KEY_SCOPES.filter((scope) => creator.scopes.has(scope));
  const beyond = scopes.find((scope) => !creator.scopes.has(scope));
  if (beyond) throw new InsufficientScopeError(beyond);
  if (scopes.length === 0) {
    throw ValidationError.single(
      'scopes',
      'required',
      `scopes must name at least one scope this key may grant (${[...creator.scopes].join(', ')})`,
    );
  }
  return scopes;
}

/** A key never outlives the credential that mints it: omitted, it expires with it; later is refused. */
function expiryFor(creator: KeyCreator, asked: Date | null | undefined): Date | null {
  if (asked === undefined) return creator.expiresAt;
  if (creator.expiresAt && (asked === null || asked > creator.expiresAt)) {
    throw ValidationError.single(
      'expires_at',
      'too_big',
      `expires_at must not be later than the key that creates it (${toTimestamp(creator.expiresAt)})`,
    );
  }
  return asked;
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    created_at: toTimestamp(row.createdAt),
    expires_at: row.expiresAt ? toTimestamp(row.expiresAt) : null,
    last_used_at: row.lastUsedAt ? toTimestamp(row.lastUsedAt) : null,
  };
}

/** A new key, never with a scope its creator lacks; the only time the key itself is returned. */
export async function createKey(deps: TxDeps, creator: KeyCreator, body: CreateKeyBody): Promise<CreatedKey> {
  const scopes = scopesFor(creator, body.scopes);
  const expiresAt = expiryFor(creator, body.expires_at);
  const material = generateKey();
  const row = await commitWithEvents(deps, async (tx) => {
    await assertNotSuspended(tx, creator.userId);
    if ((await countLiveKeysLocked(tx, creator.userId)) >= MAX_KEYS_PER_USER) {
      throw new ConflictError(`you already have ${MAX_KEYS_PER_USER} live keys; revoke one first`);
    }
    return insertKey(tx, {
      userId: creator.userId,
      name: body.name,
      prefix: material.prefix,
      hash: material.hash,
      scopes,
      expiresAt,
    });
  });
  const { last_used_at: _unused, ...key } = toApiKey(row);
  return { ...key, key: material.key };
}

export async function listKeys(sql: Sql, userId: number): Promise<ApiKey[]> {
  return (await queryKeys(sql, userId)).map(toApiKey);
}

/** Revokes one of the caller's keys; another user's key is a 404, as if it did not exist. */
export async function revokeKey(deps: TxDeps, userId: number, keyId: number): Promise<Deleted> {
  return commitWithEvents(deps, async (tx) => {
    const row = await markRevoked(tx, userId, keyId);
    if (!row) throw new NotFoundError('key');
    await enqueueEvent(tx, 'api_key.revoked', { id: row.id, user_id: userId, prefix: row.prefix });
    return deleted(row.id);
  });
}
