import { createLogger } from '@community/logging';
import { CallerGoneError, createBreaker } from '../../src/proxy/breaker';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('a breaker', () => {
  it('counts calls and failures, and keeps no latency percentiles', async () => {
    const breaker = createBreaker('test', logger);
    try {
      for (let i = 0; i < 50; i++) await breaker.fire(() => Promise.resolve(i));
      const { fires, successes, latencyMean, percentiles } = breaker.stats;
      expect([fires, successes]).toEqual([50, 50]);
      // -1 is opossum's "not kept": no latency list is joined and sorted each second.
      expect(latencyMean).toBe(-1);
      expect(Object.values(percentiles).every((p) => p === -1)).toBe(true);
    } finally {
      breaker.shutdown();
    }
  });

  it('opens when more than half of at least 5 calls failed, and a caller gone is no failure', async () => {
    const breaker = createBreaker('test', logger);
    try {
      for (let i = 0; i < 6; i++)
        await breaker.fire(() => Promise.reject(new CallerGoneError())).catch(() => undefined);
      expect(breaker.opened).toBe(false);
      for (let i = 0; i < 6; i++)
        await breaker.fire(() => Promise.reject(new Error('refused'))).catch(() => undefined);
      // 6 of 12: not more than half.
      expect(breaker.opened).toBe(false);
      await breaker.fire(() => Promise.reject(new Error('refused'))).catch(() => undefined);
      expect(breaker.opened).toBe(true);
    } finally {
      breaker.shutdown();
    }
  });
});
