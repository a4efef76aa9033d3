import { assertModerator } from '@community/access';
import {
  eventData,
  toTimestamp,
  type Actor,
  type ListModerationActionsQuery,
  type ModerationActionEntry,
} from '@community/contracts';
import type { Sql } from '@community/db';
import type { EventHandler } from '@community/events';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import {
  actionsAfter,
  appendAction,
  listActions,
  type ModerationActionRow,
} from '../../db/moderation-actions.repository';

/**
 * The audit log (DESIGN.md §12): every `moderation.action` event, from this service and from
 * users-service (suspensions), stored once, when it was done.
 */
export const onModerationAction: EventHandler = async (tx, event) => {
  const act = eventData['moderation.action'].parse(event.data);
  await appendAction(tx, event.id, {
    actorId: act.actor_id,
    action: act.action,
    targetType: act.target_type,
    targetId: act.target_id,
    reason: act.reason,
    at: event.timestamp,
  });
};

/** The audit log, newest first (scope `moderate`). */
export async function listModerationActions(
  sql: Sql,
  actor: Actor,
  { page, limit }: ListModerationActionsQuery,
): Promise<Page<ModerationActionEntry>> {
  assertModerator(actor, 'read the moderation log');
  const { rows, total } = await listActions(sql, limit, (page - 1) * limit);
  return { items: rows.map(toEntry), totalItems: total, page, limit };
}

/** The acts logged before the act `afterId` (a cursor walk). */
export async function moderationActionsAfter(
  sql: Sql,
  actor: Actor,
  { limit }: ListModerationActionsQuery,
  afterId: number,
): Promise<Slice<ModerationActionEntry>> {
  assertModerator(actor, 'read the moderation log');
  return sliceOf((await actionsAfter(sql, afterId, limit + 1)).map(toEntry), limit);
}

function toEntry(row: ModerationActionRow): ModerationActionEntry {
  return {
    id: row.id,
    actor_id: row.actorId,
    action: row.action as ModerationActionEntry['action'],
    target_type: row.targetType as ModerationActionEntry['target_type'],
    target_id: row.targetId,
    reason: row.reason,
    created_at: toTimestamp(row.createdAt),
  };
}
