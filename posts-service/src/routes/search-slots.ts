import { inSlots, type Slots } from '@community/http-kit';
import { assertSearchable } from '../domain/search';

/**
 * Runs a search (`q`) in one of the search slots. A search too costly to run is refused first
 * (DESIGN.md §21): it neither waits for a slot nor reaches the database, so a flood of them keeps no
 * one else's search waiting.
 */
export function inSearchSlots<T>(
  slots: Slots,
  locals: Record<string, unknown>,
  q: string,
  search: () => Promise<T>,
): Promise<T> {
  assertSearchable(q);
  return inSlots(slots, locals, 'searches', search);
}
