import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '@community/contracts';

export interface AvatarsBudgetOptions {
  prefix: string;
  /** Requests per address per minute (AVATARS_PER_MINUTE). */
  perMinute: number;
  /** How many gateways share the budget: without Redis each one allows perMinute ÷ replicas. */
  replicas: number;
}

/**
 * The default avatars' own budget per address (DESIGN.md §21): they pass before keys and the API's
 * limits — every page that lists users loads them — so this is all that stands between one address
 * and users-service. One minute window in Redis (rate-limiter-flexible, atomic); while Redis is not
 * ready, each process counts alone.
 */
export class AvatarsBudget {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, opts: AvatarsBudgetOptions) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${opts.prefix}rl:avatars`,
      points: opts.perMinute,
      duration: 60,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({
        points: Math.max(1, Math.floor(opts.perMinute / opts.replicas)),
        duration: 60,
      }),
    });
  }

  /** Counts one request of the address; `429` with Retry-After when its minute is spent. */
  async consume(clientIp: string): Promise<void> {
    try {
      await this.limiter.consume(clientIp);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new RateLimitedError(
        `too many avatar requests from this address; retry in ${seconds} s`,
        seconds,
      );
    }
  }
}
