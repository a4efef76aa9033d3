import { hash } from 'node:crypto';
import { resolvedKeySchema, type ResolvedKey } from '@community/contracts';
import type { Registry } from 'prom-client';
import { Tally } from '@community/http-kit';
import type { UsersClient } from './users-client';

interface CacheEntry {
  value: ResolvedKey | null;
  expiresAt: number;
}

export interface KeyResolverOptions {
  users: UsersClient;
  ttlMs: number;
  /** Unknown keys are remembered for less time than known ones. */
  negativeTtlMs?: number;
  maxEntries?: number;
  registry?: Registry;
}

/** The lookup counter's label objects (Tally.inc). */
const LOOKUPS = {
  hit: Object.freeze({ result: 'hit' }),
  negativeHit: Object.freeze({ result: 'negative_hit' }),
  miss: Object.freeze({ result: 'miss' }),
};

/** How keys are stored (users-service keeps their SHA-256 only): once per request, so one-shot. */
export const hashKey = (key: string) => hash('sha256', key, 'hex');

// API keys and access tokens number their ids separately.
const credentialId = (value: ResolvedKey) => `${value.credential ?? 'api_key'}:${value.key_id}`;

/**
 * Key or access token → account, cached briefly in both directions. Revocations and role or plan
 * changes arrive as events and drop the affected entries at once; the TTL only bounds staleness if
 * events stop, and an entry never outlives the credential's own expiry.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<ResolvedKey | null>>();
  private readonly byCredentialId = new Map<string, string>();
  private readonly byUserId = new Map<number, Set<string>>();
  private readonly lookups: Tally<'result'> | undefined;

  constructor(private readonly opts: KeyResolverOptions) {
    this.lookups = opts.registry
      ? new Tally({
          name: 'gateway_key_lookups_total',
          help: 'API key lookups by cache result',
          labelNames: ['result'],
          registry: opts.registry,
        })
      : undefined;
  }

  /** The account behind `key`, or null when it is unknown, revoked or expired. */
  async resolve(key: string): Promise<ResolvedKey | null> {
    const known = this.known(key);
    if (known !== undefined) return known;
    const hash = hashKey(key);
    this.lookups?.inc(LOOKUPS.miss);
    let pending = this.inFlight.get(hash);
    if (!pending) {
      pending = this.fetch(hash).finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, pending);
    }
    return stillValid(await pending);
  }

  /** {@link resolve}'s answer at once when the cache holds `key`; undefined when only resolve can tell. */
  known(key: string): ResolvedKey | null | undefined {
    const cached = this.cache.get(hashKey(key));
    if (!cached || cached.expiresAt <= Date.now()) return undefined;
    this.lookups?.inc(cached.value ? LOOKUPS.hit : LOOKUPS.negativeHit);
    return stillValid(cached.value);
  }

  invalidateKey(keyId: number): void {
    const hash = this.byCredentialId.get(`api_key:${keyId}`);
    if (hash) this.forget(hash);
  }

  invalidateAccessToken(tokenId: number): void {
    const hash = this.byCredentialId.get(`access_token:${tokenId}`);
    if (hash) this.forget(hash);
  }

  invalidateUser(userId: number): void {
    for (const hash of this.byUserId.get(userId) ?? []) this.forget(hash);
  }

  private async fetch(hash: string): Promise<ResolvedKey | null> {
    const answer = await this.opts.users.post('/internal/keys/resolve', { key_hash: hash });
    if (answer.status !== 404 && answer.status !== 200)
      throw new Error(`key lookup answered ${answer.status}`);
    const value =
      answer.status === 404 ? null : resolvedKeySchema.parse((answer.body as { data: unknown }).data);
    this.remember(hash, value);
    return value;
  }

  private remember(hash: string, value: ResolvedKey | null): void {
    let ttl = value ? this.opts.ttlMs : (this.opts.negativeTtlMs ?? Math.min(this.opts.ttlMs, 10_000));
    if (value?.expires_at) ttl = Math.min(ttl, Date.parse(value.expires_at) - Date.now());
    if (ttl <= 0) return;
    this.forget(hash);
    if (this.cache.size >= (this.opts.maxEntries ?? 100_000)) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
    this.cache.set(hash, { value, expiresAt: Date.now() + ttl });
    if (value) {
      this.byCredentialId.set(credentialId(value), hash);
      const hashes = this.byUserId.get(value.user_id) ?? new Set<string>();
      hashes.add(hash);
      this.byUserId.set(value.user_id, hashes);
    }
  }

  private forget(hash: string): void {
    const entry = this.cache.get(hash);
    this.cache.delete(hash);
    if (!entry?.value) return;
    this.byCredentialId.delete(credentialId(entry.value));
    const hashes = this.byUserId.get(entry.value.user_id);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byUserId.delete(entry.value.user_id);
  }
}

/** A key that expired while cached is refused like any expired key. */
function stillValid(value: ResolvedKey | null): ResolvedKey | null {
  if (value?.expires_at && Date.parse(value.expires_at) <= Date.now()) return null;
  return value;
}
