import type { ActiveSuspension } from '@community/contracts';

/** A cached suspension ends by itself when its `until` passes: no event, no restart. */
export const stillSuspended = ({ until }: ActiveSuspension): boolean =>
  until === null || Date.parse(until) > Date.now();
