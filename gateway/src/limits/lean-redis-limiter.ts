import type Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

type ScriptedRedis = Redis & { rlflxIncr(args: string[]): Promise<[number, number]> };

/**
 * rate-limiter-flexible's Redis limiter, minus one allocation per call: 7.4 builds an ioredis MULTI
 * on every consume and reward (~15 µs each, two windows per request) and uses it only to force an
 * expiry (`block`, `set`), which the gateway never calls. Consume and reward go straight to the
 * library's own increment script, exactly as its `_upsert` would send it. The version is pinned in
 * package.json; the limit tests fail if an upgrade changes what `_upsert` means.
 */
export class LeanRateLimiterRedis extends RateLimiterRedis {
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    const seconds = Math.floor(msDuration / 1000);
    if (forceExpire || seconds <= 0 || !Number.isInteger(points)) {
      return (RateLimiterRedis.prototype as unknown as LeanRateLimiterRedis)._upsert.call(
        this,
        key,
        points,
        msDuration,
        forceExpire,
      );
    }
    const self = this as unknown as { client: ScriptedRedis; points: number; duration: number };
    return self.client.rlflxIncr([
      key,
      String(points),
      String(seconds),
      String(self.points),
      String(self.duration),
    ]);
  }
}
