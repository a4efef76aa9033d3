import { assertModerator, assertScope } from '@community/access';
import {
  ConflictError,
  FLAGS_TO_HIDE,
  ForbiddenError,
  NotFoundError,
  toTimestamp,
  ValidationError,
  type Actor,
  type CreateFlagBody,
  type DecideFlagBody,
  type Flag,
  type ListFlagsQuery,
} from '@community/contracts';
import type { Tx } from '@community/db';
import { commitWithEvents, type TxDeps } from '@community/events';
import type { Page } from '@community/http-kit';
import {
  authorRoleOf,
  closeOpenFlags,
  countingFlagReasons,
  findFlag,
  insertFlag,
  listFlags as queryFlags,
  type FlagRow,
  type Target,
} from '../../db/flags.repository';
import { removeComment } from '../comments/change-comment';
import { removePost } from '../posts/delete-post';
import { visibleComment, visibleTo } from '../visibility';
import { recordModeration } from './audit';
import { lockItem, setHidden, type Item } from './hiding';
import { hasStanding, hideableByFlags, takeFlagAllowance, type FlagStanding } from './standing';

/** What flagging needs beyond a transaction: how standing is measured (FLAG_MIN_ACCOUNT_AGE_HOURS). */
export interface FlagDeps extends TxDeps {
  flagStanding: FlagStanding;
}

/**
 * A member flags a post or comment they can see, not their own, once while their flag is open, and
 * at most FLAGS_PER_HOUR times an hour. The third open flag that counts (its flagger's account old
 * enough) hides a member's item until a moderator decides (DESIGN.md §12, §21); staff content is only
 * queued. The item's row lock orders concurrent flags, so exactly one of them hides it.
 */
export async function flagContent(
  deps: FlagDeps,
  actor: Actor,
  target: Target,
  body: CreateFlagBody,
): Promise<Flag> {
  assertScope(actor, 'write');
  return commitWithEvents(deps, async (tx) => {
    const item = await lockItem(tx, target);
    const row =
      target.type === 'post'
        ? visibleTo(actor, item?.row ?? null, 'post')
        : visibleComment(actor, item?.type === 'comment' ? item.row : null);
    if (row.authorId === actor.userId) throw new ForbiddenError(`you cannot flag your own ${target.type}`);
    await takeFlagAllowance(tx, actor);
    const countsToHide = await hasStanding(tx, actor, deps.flagStanding);
    const flag = await insertFlag(tx, {
      target,
      flaggerId: actor.userId,
      reason: body.reason,
      note: body.note ?? null,
      countsToHide,
    });
    if (!flag) throw new ConflictError(`you already have an open flag on this ${target.type}`);
    if (countsToHide) await hideWhenFlagged(tx, item!, target);
    return toFlag(flag);
  });
}

/** Hides a member's item once FLAGS_TO_HIDE open flags count towards it, and logs the automatic act. */
async function hideWhenFlagged(tx: Tx, item: Item, target: Target): Promise<void> {
  const reasons = await countingFlagReasons(tx, target);
  if (reasons.length < FLAGS_TO_HIDE || !hideableByFlags(await authorRoleOf(tx, target))) return;
  if (!(await setHidden(tx, item, true))) return;
  const why = `${reasons.length} open flags: ${[...new Set(reasons)].join(', ')}`;
  await recordModeration(tx, { actorId: null, action: 'hide', target, reason: why });
}

/** One flag (scope `moderate`): where a new flag's `Location` points. */
export async function readFlag(deps: TxDeps, actor: Actor, id: number): Promise<Flag> {
  assertModerator(actor, 'read flags');
  const flag = await findFlag(deps.sql, id);
  if (!flag) throw new NotFoundError('flag');
  return toFlag(flag);
}

/** The review queue (scope `moderate`): flags in a status, oldest first. */
export async function listFlags(deps: TxDeps, actor: Actor, query: ListFlagsQuery): Promise<Page<Flag>> {
  assertModerator(actor, 'read the flag queue');
  const { page, limit, status, target_type } = query;
  const { rows, total } = await queryFlags(
    deps.sql,
    { status, targetType: target_type },
    limit,
    (page - 1) * limit,
  );
  return { items: rows.map(toFlag), totalItems: total, page, limit };
}

/**
 * A moderator decides a flag, and with it every open flag on its item: `resolved` with an action
 * (none, hide, unhide, delete), or `dismissed`, which shows the item again. The item is locked before
 * the flags are, in the order flagging takes them, so a decision and a new flag never deadlock.
 */
export async function decideFlag(
  deps: TxDeps,
  actor: Actor,
  id: number,
  body: DecideFlagBody,
): Promise<Flag> {
  assertModerator(actor, 'decide flags');
  const action = body.status === 'dismissed' ? 'unhide' : (body.action ?? 'none');
  if (
    body.status === 'dismissed' &&
    body.action !== undefined &&
    body.action !== 'none' &&
    body.action !== 'unhide'
  )
    throw ValidationError.single(
      'action',
      'invalid_value',
      'a dismissal takes no action: it shows the item again',
    );
  return commitWithEvents(deps, async (tx) => {
    const named = await findFlag(tx, id);
    if (!named) throw new NotFoundError('flag');
    const target = { type: named.targetType, id: named.targetId };
    const item = await lockItem(tx, target);
    const flag = (await findFlag(tx, id, { forUpdate: true }))!;
    if (flag.status !== 'open') throw new ConflictError(`this flag is already ${flag.status}`);
    await closeOpenFlags(tx, target, body.status, actor.userId);
    const reason = body.reason ?? null;
    const decision = body.status === 'resolved' ? 'resolve_flags' : 'dismiss_flags';
    await recordModeration(tx, { actorId: actor.userId, action: decision, target, reason });
    // An item deleted meanwhile takes no action: its flags are closed all the same.
    if (item && action !== 'none' && (await apply(tx, item, action)))
      await recordModeration(tx, { actorId: actor.userId, action, target, reason });
    return toFlag({ ...flag, status: body.status });
  });
}

/** Carries out a decision's action on the item; true when it changed something. */
async function apply(tx: Tx, item: Item, action: 'hide' | 'unhide' | 'delete'): Promise<boolean> {
  switch (action) {
    case 'hide':
    case 'unhide':
      return setHidden(tx, item, action === 'hide');
    case 'delete':
      // As any delete: `post.deleted` or `comment.deleted` reaches webhooks and the other services.
      await (item.type === 'post' ? removePost(tx, item.row) : removeComment(tx, item.row));
      return true;
  }
}

/** A flag as the API shows it; the export shows the member's own the same way. */
export function toFlag(row: Omit<FlagRow, 'flaggerId'>): Flag {
  return {
    id: row.id,
    target_type: row.targetType,
    target_id: row.targetId,
    reason: row.reason as Flag['reason'],
    note: row.note,
    status: row.status,
    created_at: toTimestamp(row.createdAt),
  };
}
