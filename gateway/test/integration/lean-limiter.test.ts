import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { redisPrefix, testInfra } from '@community/test-harness';
import { LeanRateLimiterRedis } from '../../src/limits/lean-redis-limiter';

let redis: Redis;
const prefix = redisPrefix('lean-limiter');

beforeAll(() => {
  redis = new Redis(testInfra().redisUrl, { enableOfflineQueue: true });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const outcome = async (attempt: Promise<RateLimiterRes>) => {
  try {
    return { allowed: true, remaining: (await attempt).remainingPoints };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, remaining: rejection.remainingPoints };
  }
};

describe('LeanRateLimiterRedis', () => {
  it('decides and stores exactly what rate-limiter-flexible itself does', async () => {
    const options = { storeClient: redis, points: 3, duration: 3600 };
    const library = new RateLimiterRedis({ ...options, keyPrefix: `${prefix}lib` });
    const lean = new LeanRateLimiterRedis({ ...options, keyPrefix: `${prefix}lean` });

    const steps = ['consume', 'consume', 'reward', 'consume', 'consume', 'consume', 'reward'] as const;
    for (const step of steps) {
      if (step === 'reward') {
        await Promise.all([library.reward('acct:1', 1), lean.reward('acct:1', 1)]);
      } else {
        expect(await outcome(lean.consume('acct:1'))).toEqual(await outcome(library.consume('acct:1')));
      }
      expect(await redis.get(`${prefix}lean:acct:1`)).toBe(await redis.get(`${prefix}lib:acct:1`));
    }
    const [leanTtl, libraryTtl] = await Promise.all([
      redis.pttl(`${prefix}lean:acct:1`),
      redis.pttl(`${prefix}lib:acct:1`),
    ]);
    expect(Math.abs(leanTtl - libraryTtl)).toBeLessThan(2_000);
    expect(leanTtl).toBeGreaterThan(3_500_000);
  });
});
