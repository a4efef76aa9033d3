import type { PastReplay } from '../db/replays.repository';

/*
 * The daily replay allowances (DESIGN.md §21), over a rolling 24 hours rather than the UTC day: a
 * calendar day would let twice the allowance through around midnight. A replay that finds nothing
 * to queue is not a replay: it is not recorded and counts towards nothing.
 */

export const REPLAY_WINDOW_SECONDS = 24 * 3600;
export const REPLAYS_PER_ENDPOINT = 3;
export const REPLAYED_DELIVERIES_PER_ACCOUNT = 20_000;

/** Seconds until the replay at `ageSeconds` leaves the window; at least 1. */
const untilOutOfWindow = (ageSeconds: number) => Math.max(1, Math.ceil(REPLAY_WINDOW_SECONDS - ageSeconds));

/**
 * Seconds until the endpoint may be replayed again, given its account's replays of the window
 * (oldest first); 0 when it may now.
 */
export function endpointWaitSeconds(history: PastReplay[], endpointId: number): number {
  const own = history.filter((replay) => replay.endpointId === endpointId);
  const excess = own.length - REPLAYS_PER_ENDPOINT;
  // Once the `excess + 1` oldest have left the window, one more fits.
  return excess < 0 ? 0 : untilOutOfWindow(own[excess]!.ageSeconds);
}

/** Replayed deliveries the account may still queue in the window. */
export function accountDeliveriesLeft(history: PastReplay[]): number {
  return REPLAYED_DELIVERIES_PER_ACCOUNT - history.reduce((sum, replay) => sum + replay.queued, 0);
}

/**
 * Seconds until the account may queue `count` more replayed deliveries, given its replays of the
 * window (oldest first); 0 when it may now.
 */
export function accountWaitSeconds(history: PastReplay[], count: number): number {
  let left = accountDeliveriesLeft(history);
  if (count <= left) return 0;
  for (const replay of history) {
    left += replay.queued;
    if (count <= left) return untilOutOfWindow(replay.ageSeconds);
  }
  // More than a whole allowance: never (one replay queues at most MAX_REPLAY_EVENTS, fewer than that).
  return REPLAY_WINDOW_SECONDS;
}
