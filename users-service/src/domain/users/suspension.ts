import { assertModerator } from '@community/access';
import {
  AccountSuspendedError,
  ForbiddenError,
  NotFoundError,
  toTimestamp,
  type ActiveSuspension,
  type Actor,
  type LiftedSuspension,
  type Suspension,
  type SuspensionBody,
} from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import { commitWithEvents, enqueueEvent, type TxDeps } from '@community/events';
import { deleteActiveSuspension, findActiveSuspension, putSuspension } from '../../db/suspensions.repository';
import { findUser } from '../../db/users.repository';

/*
 * Suspension (DESIGN.md §12): every key and token of the account is refused by the gateway with
 * `403 account_suspended` until it is lifted or its `until` passes. The gateway learns of each
 * change through `user.access_changed`, which drops the account's cached credentials; an expiry
 * needs no event, as the gateway compares `until` with its clock on every request.
 */

/** A moderator suspends a member (or another moderator); never an admin, never themself. */
export async function suspendUser(
  deps: TxDeps,
  actor: Actor,
  userId: number,
  body: SuspensionBody,
): Promise<Suspension> {
  assertModerator(actor, 'suspend accounts');
  if (userId === actor.userId) throw new ForbiddenError('you cannot suspend yourself');
  return commitWithEvents(deps, async (tx) => {
    const user = await findUser(tx, userId);
    if (!user) throw new NotFoundError('user');
    if (user.role === 'admin') throw new ForbiddenError('admins cannot be suspended');
    const row = await putSuspension(tx, {
      userId,
      // Whole seconds, as every timestamp is shown: the gateway and the pages end it at one instant.
      until: body.until ? new Date(Math.floor(body.until.getTime() / 1000) * 1000) : null,
      reason: body.reason,
      createdBy: actor.userId,
    });
    await announce(tx, actor, userId, 'suspend', body.reason);
    return {
      user_id: row.userId,
      until: row.until ? toTimestamp(row.until) : null,
      reason: row.reason,
      created_at: toTimestamp(row.createdAt),
    };
  });
}

/** Lifts the user's active suspension; a 404 when there is none. */
export async function liftSuspension(deps: TxDeps, actor: Actor, userId: number): Promise<LiftedSuspension> {
  assertModerator(actor, 'lift suspensions');
  return commitWithEvents(deps, async (tx) => {
    if (!(await deleteActiveSuspension(tx, userId))) throw new NotFoundError('suspension');
    await announce(tx, actor, userId, 'unsuspend', null);
    return { user_id: userId, lifted: true as const };
  });
}

/** The account's active suspension, as the pages and the key lookup show it; null when none. */
export async function accountSuspension(db: Sql | Tx, userId: number): Promise<ActiveSuspension | null> {
  const row = await findActiveSuspension(db, userId);
  return row && { until: row.until ? toTimestamp(row.until) : null, reason: row.reason };
}

/** Refuses what a suspended account may not do for itself, such as making a key (DESIGN.md §12). */
export async function assertNotSuspended(db: Sql | Tx, userId: number): Promise<void> {
  const suspension = await accountSuspension(db, userId);
  if (suspension) throw new AccountSuspendedError(suspension);
}

/** Tells the gateways (their caches) and the audit log, in the transaction of the change. */
async function announce(
  tx: Tx,
  actor: Actor,
  userId: number,
  action: 'suspend' | 'unsuspend',
  reason: string | null,
): Promise<void> {
  await enqueueEvent(tx, 'user.access_changed', { id: userId });
  await enqueueEvent(tx, 'moderation.action', {
    actor_id: actor.userId,
    action,
    target_type: 'user',
    target_id: userId,
    reason,
  });
}
