import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/*
 * An account's open streams are a sorted set of leases scored by when they run out, on Redis's clock
 * (every gateway replica counts the same set). KEYS[1] the set; ARGV: lease ms, cap, member.
 * TAKE: drops run-out leases, then adds one unless the cap is reached (1 taken, 0 full).
 * RENEW: moves a held lease's end (it is gone if it ran out: 0).
 */
const NOW = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)`;
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1`;
const RENEW = `${NOW}
local renewed = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return renewed`;

type Scripted = Redis & {
  takeStreamSlot(keys: 1, key: string, leaseMs: number, cap: number, member: string): Promise<number>;
  renewStreamSlot(keys: 1, key: string, leaseMs: number, cap: number, member: string): Promise<number>;
};

export interface StreamSlotsOptions {
  prefix: string;
  /** How many streams one account may hold open. */
  cap: number;
  /** A lease not renewed for this long is free again: the bound on a crashed replica's slots. */
  leaseMs: number;
}

export interface Slot {
  release(): void;
}

/**
 * At most `cap` open streams per account across every gateway replica, as leases in Redis renewed
 * while the stream lives; a replica that dies frees its slots within `leaseMs`. Without Redis each
 * replica counts its own (as the rate limits fall back to memory).
 */
export class StreamSlots {
  private readonly redis: Scripted;
  private readonly held = new Map<string, { key: string; account: number }>();
  private readonly local = new Map<number, number>();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    redis: Redis,
    private readonly opts: StreamSlotsOptions,
  ) {
    redis.defineCommand('takeStreamSlot', { lua: TAKE });
    redis.defineCommand('renewStreamSlot', { lua: RENEW });
    this.redis = redis as Scripted;
    this.renewal = setInterval(() => this.renew(), opts.leaseMs / 3).unref();
  }

  /** A slot of the account's, or null when all are taken. */
  async take(account: number): Promise<Slot | null> {
    const key = `${this.opts.prefix}streams:${account}`;
    const member = randomUUID();
    let taken: boolean;
    try {
      taken = (await this.redis.takeStreamSlot(1, key, this.opts.leaseMs, this.opts.cap, member)) === 1;
    } catch {
      return this.takeLocal(account);
    }
    if (!taken) return null;
    this.held.set(member, { key, account });
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(member);
        this.redis.zrem(key, member).catch(() => undefined);
      },
    };
  }

  /** Streams this process holds, for its gauge. */
  get open(): number {
    let local = 0;
    for (const count of this.local.values()) local += count;
    return this.held.size + local;
  }

  close(): void {
    clearInterval(this.renewal);
  }

  private takeLocal(account: number): Slot | null {
    const count = this.local.get(account) ?? 0;
    if (count >= this.opts.cap) return null;
    this.local.set(account, count + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.local.get(account) ?? 1) - 1;
        if (left > 0) this.local.set(account, left);
        else this.local.delete(account);
      },
    };
  }

  private renew(): void {
    for (const [member, { key }] of this.held)
      this.redis.renewStreamSlot(1, key, this.opts.leaseMs, this.opts.cap, member).catch(() => undefined);
  }
}
