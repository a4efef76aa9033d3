import type { Actor, ModerationAction } from '@community/contracts';
import { enqueueEvent } from '@community/events';
import type { Tx } from '@community/db';

/**
 * Announces a moderator's act (or an automatic hide, `actorId` null) in the transaction that does it,
 * as the internal `moderation.action` event: the audit log stores it from the bus, like the acts of
 * users-service (DESIGN.md §12).
 */
export async function recordModeration(
  tx: Tx,
  act: {
    actorId: number | null;
    action: ModerationAction;
    target: { type: 'post' | 'comment'; id: number };
    reason?: string | null;
  },
): Promise<void> {
  await enqueueEvent(tx, 'moderation.action', {
    actor_id: act.actorId,
    action: act.action,
    target_type: act.target.type,
    target_id: act.target.id,
    reason: act.reason ?? null,
  });
}

/** Deleting what someone else wrote is a moderator's act: it goes in the audit log. */
export async function recordDeleteByModerator(
  tx: Tx,
  actor: Actor,
  authorId: number,
  target: { type: 'post' | 'comment'; id: number },
): Promise<void> {
  if (actor.userId !== authorId)
    await recordModeration(tx, { actorId: actor.userId, action: 'delete', target });
}
