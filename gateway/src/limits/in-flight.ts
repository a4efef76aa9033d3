import { hash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type Redis from 'ioredis';
import { RateLimitedError } from '@community/contracts';
import type { Identity } from '../auth/identify';
import type { InFlightLimits } from '../config';
import { withDeadline } from './deadline';

/*
 * Admits one request of a subject when fewer than ARGV[1] others are in flight in Redis: KEYS[1] is a
 * sorted set of its requests in flight, scored by when they stop counting (ARGV[3], ms), so those of
 * a gateway that died leave by themselves. ARGV[2] is now (ms), ARGV[4] this request's member.
 * Answers 1 when admitted, 0 when not.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) - tonumber(ARGV[2]))
return 1
`;

export interface InFlightOptions {
  prefix: string;
  /** How many gateways share the caps (GATEWAY_REPLICAS): with one, nothing needs Redis. */
  replicas: number;
  /** How long a request counts at most: one a gateway never released stops counting after this. */
  expiryMs?: number;
  /** How long an admission waits on Redis before this process decides alone. */
  deadlineMs?: number;
}

interface Local {
  /** Requests of the subject this process has admitted and not yet seen closed. */
  total: number;
  /** Whether one of them holds the process's own slot, counted nowhere else. */
  ownTaken: boolean;
}

/** Retry-After for a refusal: a slot frees when any of the subject's requests ends. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The requests each account (or address) has in flight (DESIGN.md §21): admitted by the gateway and
 * not yet answered in full or abandoned by the client. One gateway counts them in its own memory,
 * exactly and with no Redis call. Where several share the caps, a subject's first request in flight
 * on a process takes the process's own slot, with no Redis call — so a client that waits for each
 * answer never pays one; the others are counted in Redis, which every gateway shares, against
 * `cap - 1`: R gateways hold an account to at most `cap + R - 1`. While Redis does not answer, each
 * process alone holds each subject to its cap.
 */
export class InFlight {
  private readonly local = new Map<string, Local>();
  private readonly expiryMs: number;
  private readonly deadlineMs: number;
  private readonly id = randomUUID();
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly opts: InFlightOptions,
  ) {
    this.expiryMs = opts.expiryMs ?? 60_000;
    this.deadlineMs = opts.deadlineMs ?? 500;
  }

  /** Takes a slot for this request until `res` closes; `429 concurrency_limited` when all are taken. */
  async admit(subject: string, cap: number, res: ServerResponse): Promise<void> {
    const local = this.localOf(subject);
    if (this.opts.replicas === 1) {
      if (local.total >= cap) throw refusal(cap);
      this.hold(subject, local, res, () => undefined);
      return;
    }
    if (!local.ownTaken) {
      local.ownTaken = true;
      this.hold(subject, local, res, () => (local.ownTaken = false));
      return;
    }
    const member = `${this.id}:${++this.sequence}`;
    const key = `${this.opts.prefix}inflight:${subject}`;
    if (!(await this.admitShared(key, member, cap, local.total))) throw refusal(cap);
    this.hold(subject, local, res, () => {
      this.redis.zrem(key, member).catch(() => undefined);
    });
  }

  private async admitShared(key: string, member: string, cap: number, heldHere: number) {
    if (this.redis.status === 'ready') {
      const now = Date.now();
      try {
        const admitted = this.redis.eval(ADMIT, 1, key, cap - 1, now, now + this.expiryMs, member);
        return (await withDeadline(admitted, this.deadlineMs)) === 1;
      } catch {
        // No answer in time: decided here alone below (a late admission in Redis expires by itself).
      }
    }
    return heldHere < cap;
  }

  private localOf(subject: string): Local {
    let local = this.local.get(subject);
    if (!local) this.local.set(subject, (local = { total: 0, ownTaken: false }));
    return local;
  }

  private hold(subject: string, local: Local, res: ServerResponse, release: () => void) {
    local.total++;
    res.once('close', () => {
      release();
      if (--local.total === 0) this.local.delete(subject);
    });
  }
}

function refusal(cap: number) {
  return new RateLimitedError(
    `${cap} of your requests are in flight already, the most your plan allows; retry when one is answered`,
    RETRY_AFTER_SECONDS,
    'concurrency_limited',
  );
}

/**
 * Whose requests in flight a request joins, and how many they may be: the account behind a key; the
 * session on the account pages (and the key API it calls); else the address.
 */
export function inFlightCallerOf(
  limits: InFlightLimits,
  { resolved, session }: Identity,
  clientIp: string,
): [caller: string, cap: number] {
  if (resolved) return [`acct:${resolved.user_id}`, limits[resolved.plan]];
  if (session) return [`session:${hash('sha256', session, 'base64url')}`, limits.free];
  return [`ip:${clientIp}`, limits.anonymous];
}
