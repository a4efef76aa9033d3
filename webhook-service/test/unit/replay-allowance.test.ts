import {
  accountWaitSeconds,
  endpointWaitSeconds,
  REPLAY_WINDOW_SECONDS,
} from '../../src/domain/replay-allowance';

const HOUR = 3600;
const past = (endpointId: number, queued: number, ageHours: number) => ({
  endpointId,
  queued,
  ageSeconds: ageHours * HOUR,
});

describe('endpointWaitSeconds', () => {
  it('lets an endpoint replay while it has had fewer than 3 in the window, whatever its account did', () => {
    expect(endpointWaitSeconds([past(1, 5, 20), past(1, 5, 10), past(2, 5, 1), past(2, 5, 1)], 1)).toBe(0);
  });

  it('waits until the oldest of its 3 leaves the rolling 24 hours', () => {
    expect(endpointWaitSeconds([past(1, 5, 20), past(2, 9, 15), past(1, 5, 10), past(1, 5, 1)], 1)).toBe(
      4 * HOUR,
    );
  });

  it('never answers less than a second', () => {
    const history = [1, 2, 3].map(() => ({ endpointId: 1, queued: 1, ageSeconds: REPLAY_WINDOW_SECONDS }));
    expect(endpointWaitSeconds(history, 1)).toBe(1);
  });
});

describe('accountWaitSeconds', () => {
  it('lets a replay through while it fits in the 20,000 left', () => {
    expect(accountWaitSeconds([past(1, 10_000, 5), past(2, 5_000, 1)], 5_000)).toBe(0);
  });

  it('waits until enough of the oldest replays have left the window for this one to fit', () => {
    const history = [past(1, 4_000, 22), past(2, 10_000, 12), past(3, 6_000, 2)];
    // 0 left; 4,000 once the first goes (in 2 h), 14,000 once the second goes (in 12 h).
    expect(accountWaitSeconds(history, 3_000)).toBe(2 * HOUR);
    expect(accountWaitSeconds(history, 9_000)).toBe(12 * HOUR);
  });
});
