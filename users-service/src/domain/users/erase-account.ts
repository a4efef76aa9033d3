import { assertAdmin } from '@community/access';
import {
  ForbiddenError,
  NotFoundError,
  type Actor,
  type EraseMeBody,
  type EraseQuery,
  type Erasure,
} from '@community/contracts';
import type { Tx } from '@community/db';
import { commitWithEvents, enqueueEvent, type TxDeps } from '@community/events';
import {
  anonymiseUser,
  endCredentials,
  forgetAccountRecords,
  journalErasure,
  passwordHashOf,
  usernameOf,
} from '../../db/erasure.repository';
import { clearBucket } from '../../db/throttle.repository';
import { failedLoginLimit } from '../accounts/sessions';
import { reserveFromLimit } from '../throttle';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../passwords';
import { announceRevoked } from '../oauth/revocation';

/*
 * Erasure (DESIGN.md §20). This service forgets in the transaction of the request and journals the
 * erasure (id and time, for §16's restore); the others forget through `user.erased`, which waits in
 * the queue of a service that is down. `user.access_changed` drops the gateway's cached credentials
 * of the account, whose keys and tokens no longer resolve; `user.deleted` is the public event.
 */

const ERASING: Erasure = { status: 'erasing' };

/**
 * The member erases their own account; the password confirms it. Each attempt counts toward the
 * login form's failed-login throttle of the account and address first (a right password clears it),
 * so a stolen session or key cannot try passwords here faster than on the form.
 */
export async function eraseMe(
  deps: TxDeps,
  caller: { userId: number },
  body: EraseMeBody,
  query: EraseQuery,
  clientIp: string,
): Promise<Erasure> {
  const username = await usernameOf(deps.sql, caller.userId);
  const limit = username === null ? null : failedLoginLimit(username, clientIp);
  if (limit) await reserveFromLimit(deps.sql, limit);
  return commitWithEvents(deps, async (tx) => {
    const stored = await passwordHashOf(tx, caller.userId);
    // A missing account still pays for a hash: the answer takes as long either way.
    const valid = await verifyPassword(body.password, stored ?? (await DUMMY_HASH_PROMISE));
    if (!stored || !valid) throw new ForbiddenError('the password is not right');
    if (limit) await clearBucket(tx, limit.bucket);
    await eraseInTx(tx, caller.userId, query);
    return ERASING;
  });
}

/** An admin erases another account; an account erased already answers the same. */
export async function eraseUser(
  deps: TxDeps,
  actor: Actor,
  userId: number,
  query: EraseQuery,
): Promise<Erasure> {
  assertAdmin(actor, 'erase accounts');
  if (userId === actor.userId)
    throw new ForbiddenError('erase your own account with DELETE /users/me and your password');
  return commitWithEvents(deps, async (tx) => {
    if ((await passwordHashOf(tx, userId)) === null) throw new NotFoundError('user');
    await eraseInTx(tx, userId, query);
    return ERASING;
  });
}

/**
 * Forgets the account here and tells the others. Again for an erased account: `user.erased` goes out
 * once more (every consumer applies it idempotently), so a repeat can finish a stalled erasure; the
 * public `user.deleted` goes out once.
 */
export async function eraseInTx(tx: Tx, userId: number, query: EraseQuery): Promise<void> {
  const first = await journalErasure(tx, userId, query.content ?? 'keep');
  await anonymiseUser(tx, userId);
  await announceRevoked(tx, await endCredentials(tx, userId));
  await forgetAccountRecords(tx, userId);
  await enqueueEvent(tx, 'user.access_changed', { id: userId });
  await enqueueEvent(tx, 'user.erased', { id: userId, content: query.content ?? 'keep' });
  if (first) await enqueueEvent(tx, 'user.deleted', { id: userId });
}
