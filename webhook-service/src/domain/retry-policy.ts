export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  retryAfterSeconds: number | null;
  gone: boolean;
}

export type Next =
  { kind: 'succeeded' } | { kind: 'retry'; delaySeconds: number } | { kind: 'failed' } | { kind: 'gone' };

/**
 * What follows an attempt (DESIGN.md §7): success; 410 gives up and disables the endpoint; otherwise
 * the next retry of the schedule with ±20% jitter — or the receiver's Retry-After on 429/503 — until
 * the schedule is spent, then failed. `attemptInRound` counts this round's attempts, this one included.
 */
export function nextStep(
  outcome: AttemptOutcome,
  attemptInRound: number,
  schedule: number[],
  random = Math.random,
): Next {
  if (outcome.ok) return { kind: 'succeeded' };
  if (outcome.gone) return { kind: 'gone' };
  const planned = schedule[attemptInRound - 1];
  if (planned === undefined) return { kind: 'failed' };
  const honoursRetryAfter =
    (outcome.status === 429 || outcome.status === 503) && outcome.retryAfterSeconds !== null;
  const delaySeconds = honoursRetryAfter
    ? Math.min(Math.max(outcome.retryAfterSeconds!, 0), MAX_RETRY_AFTER_SECONDS)
    : planned * (0.8 + 0.4 * random());
  return { kind: 'retry', delaySeconds };
}
