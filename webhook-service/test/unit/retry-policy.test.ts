import { nextStep } from '../../src/domain/retry-policy';

const failure = (status: number | null, retryAfterSeconds: number | null = null) => ({
  ok: false,
  status,
  retryAfterSeconds,
  gone: status === 410,
});
const schedule = [5, 300, 1800];

describe('nextStep', () => {
  it('succeeds on 2xx and gives up on 410', () => {
    expect(nextStep({ ok: true, status: 200, retryAfterSeconds: null, gone: false }, 1, schedule)).toEqual({
      kind: 'succeeded',
    });
    expect(nextStep(failure(410), 1, schedule)).toEqual({ kind: 'gone' });
  });

  it('follows the schedule with ±20% jitter, then fails', () => {
    expect(nextStep(failure(500), 1, schedule, () => 0)).toEqual({ kind: 'retry', delaySeconds: 4 });
    expect(nextStep(failure(500), 1, schedule, () => 1)).toEqual({
      kind: 'retry',
      delaySeconds: expect.closeTo(6, 9),
    });
    expect(nextStep(failure(null), 3, schedule, () => 0.5)).toEqual({ kind: 'retry', delaySeconds: 1800 });
    expect(nextStep(failure(500), 4, schedule)).toEqual({ kind: 'failed' });
  });

  it('honours Retry-After on 429 and 503 only, capped at a day', () => {
    expect(nextStep(failure(429, 42), 1, schedule)).toEqual({ kind: 'retry', delaySeconds: 42 });
    expect(nextStep(failure(503, 999_999), 1, schedule)).toEqual({ kind: 'retry', delaySeconds: 86_400 });
    expect(nextStep(failure(500, 42), 1, schedule, () => 0.5)).toEqual({ kind: 'retry', delaySeconds: 5 });
  });
});
