/*
 * Two lanes (DESIGN.md §21): an endpoint is in the fast lane only while its last attempt (or ping)
 * answered in time. New endpoints, and those whose last attempt timed out or failed to connect,
 * share the slow lane: one attempt in flight each, and at most a tenth of a dispatcher's slots for
 * all of them together. So receivers that hang, whoever owns them, never hold the slots the
 * endpoints that answer need.
 */

/** A status arrived and the attempt ended before its timeout: anything else sends the endpoint to the slow lane. */
export const answeredInTime = (attempt: { status: number | null; timedOut: boolean }): boolean =>
  attempt.status !== null && !attempt.timedOut;

/** Attempts one slow-lane endpoint may have in flight, across every dispatcher. */
export const SLOW_LANE_PER_ENDPOINT = 1;

/** The slots of a dispatcher with `maxInFlight` that the slow lane may hold: a tenth, at least one. */
export const slowLaneSlots = (maxInFlight: number): number => Math.max(1, Math.floor(maxInFlight / 10));
