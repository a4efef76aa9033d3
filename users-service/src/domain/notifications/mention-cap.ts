import type { Tx } from '@community/db';
import { countMentions } from '../../db/mention-quota.repository';

/**
 * How often one member's mentions may notify one recipient in a UTC day (DESIGN.md §21); past it a
 * mention makes no notification, and the post or comment is untouched. A calendar day, not a sliding
 * 24 hours, so the count is one row per pair that a single atomic upsert keeps.
 */
export const MENTIONS_PER_RECIPIENT_PER_DAY = 20;

/** Of these recipients of `authorId`'s mention, those it may still notify today; each is counted. */
export async function mentionsWithinCap(tx: Tx, authorId: number, recipientIds: number[]): Promise<number[]> {
  return countMentions(tx, { actorId: authorId, recipientIds, max: MENTIONS_PER_RECIPIENT_PER_DAY });
}
